/* What D rejects about structs by value (spec §4.11): arithmetic, comparison, another type,
   an integer variable, ++, & of a variable. */
struct pair { int a; char b; long c[2]; };

BEGIN { this->p = *(struct pair *)arg0; trace(this->p + 1); }
BEGIN { this->q = *curthread; this->q == this->q; }
BEGIN { this->r = *curthread; this->r = *(struct pair *)arg0; }
BEGIN { x = 1; x = *curthread; }
BEGIN { this->s = *(struct list_head *)arg0; this->s++; trace(&this->s); this->s = 0; }
BEGIN { (((a[u] = 0))).s = 1; }
