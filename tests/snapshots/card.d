/* The card one-liner, exactly as typed. */
syscall:::entry /comm=="io-benchmark"/ <@[probefunc]=count()>
