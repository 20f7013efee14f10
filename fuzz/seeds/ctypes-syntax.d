/* Malformed C-typed forms: syntax errors with a hint, never a crash. */
BEGIN { trace((struct)x); }
BEGIN { trace(x->); }
BEGIN { trace(sizeof()); }
BEGIN { trace(offsetof(struct s)); }
BEGIN { trace(a[]); }
BEGIN { int = 1; }
