/* Every operator, precedence, constants of each form, characters and strings. */
BEGIN
{
    a = 1 + 2 * 3 - 4 / 5 % 6;
    b = (a << 2) >> 1 | a & 7 ^ 3;
    c = a < b && b <= c || c > a ^^ a >= b;
    d = a == b ? a != c ? -a : ~b : !c;
    e = + +a - -b;
    f = 0x7fffffffffffffff + 0xffffffffffffffff + 9223372036854775808 + 017 + 0X1f + 1u + 1UL + 1LL + 1lu + 1ULL;
    g = 'a' + '\n' + '\377' + '\x41' + '\0' + '\'' + '\\';
    a *= 2; a /= 3; a %= 4; a &= 5; a |= 6; a ^= 7; a <<= 1; a >>= 1; a -= 1;
    printf("%d %d %d %d %d %d %d\n", a, b, c, d, e, f, g);
    printf("%5d|%-5d|%05d|%+d|% d|%x|%X|%#x|%#o|%o|%u|%c|%i|%.3d|%.d|%%\n", a, a, a, a, a, a, a, a, a, a, -1, 65, a, a, 0);
    printf("%s|%10s|%-10s|%.2s|%lld|%hhd|%zd|%jd|%td|%ld\n", "str", "r", "l", "trunc", 1, 2, 3, 4, 5, 6);
    printf("%Y %20Y %-30Y|\n", walltimestamp, walltimestamp, 0);
    printf("escapes \a\b\f\n\r\t\v\\\"\'\? \101\7\x41\x é £\n");
    trace("a\377b" == "\xc3\xa9");
    trace("abc" < "abd");
    trace(execname == "crumbs");
    trace("crumbs" != execname);
    trace(execname >= "a");
    trace(probefunc == "read");
    trace(-9223372036854775807 - 1);
    trace((-7) / 2 + -7 % 2 + 5 / 0 + 5 % 0);
    trace(1 << 65);
    trace(-1 >> 63);
    exit(0);
}
