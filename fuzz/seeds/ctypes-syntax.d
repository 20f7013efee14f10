/* Malformed C-typed forms: syntax errors with a hint, never a crash. */
BEGIN { trace((struct)x); }
BEGIN { trace(x->); }
BEGIN { trace(sizeof()); }
BEGIN { trace(offsetof(struct s)); }
BEGIN { trace(a[]); }
BEGIN { int = 1; }
BEGIN { trace((pid_t)-1); trace((pid_t)*&curthread->pid); trace(-(pid_t)-(pid_t)-1 * 2); trace((pid) - 1); }
