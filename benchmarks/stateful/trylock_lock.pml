/* Promela twin of trylock_lock.weft (see README.md). `while
 * !trylock(m) {}`: each trylock is one atomic step, a test-and-set of
 * the mutex that takes it when it is free and changes nothing when it
 * is held. */
bit  m;
byte cs;

active [2] proctype worker() {
    byte t;
    do
    :: do
       :: atomic { m == 1 -> skip }              /* trylock failed */
       :: atomic { m == 0 -> m = 1; break }      /* trylock took it */
       od;
       t = cs;
       d_step { cs = t + 1; t = 0 };
       assert(cs == 1);
       t = cs;
       d_step { cs = t - 1; t = 0 };
       m = 0
    od
}
