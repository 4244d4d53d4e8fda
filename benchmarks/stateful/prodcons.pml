/* Promela twin of prodcons.weft (see README.md). Promela has no
 * condition variables; they are built from guards as Weft defines them:
 * w[p] is 0 while process p runs, 1 while it sleeps in wait (having
 * released the mutex in the same step), 2 once a signal woke it; its
 * wake-up is the step that takes the mutex back. Only the producer
 * waits on notFull and only the consumer on notEmpty, so a signal has
 * at most one thread to wake. */
#define N 2
bit  m;
byte w[2];           /* 0: producer (waits on notFull), 1: consumer (on notEmpty) */
byte buf[N];
byte head;
byte count;

inline lock(mx) { d_step { mx == 0 -> mx = 1 } }

active proctype producer() {
    byte v = 0;
    byte c, h;
    do
    :: lock(m);
       do
       :: count == N ->
          d_step { w[0] = 1; m = 0 };                     /* wait(notFull, m) */
          d_step { w[0] == 2 && m == 0 -> w[0] = 0; m = 1 } /* its wake-up */
       :: else -> break
       od;
       c = count;
       h = head;
       d_step { buf[(h + c) % N] = v; h = 0 };
       d_step { count = c + 1; c = 0 };
       d_step { if :: w[1] == 1 -> w[1] = 2 :: else fi };  /* signal(notEmpty) */
       d_step { m = 0; v = (v + 1) % 3 }
    od
}

active proctype consumer() {
    byte expect = 0;
    byte h, x, t;
    do
    :: lock(m);
       do
       :: count == 0 ->
          d_step { w[1] = 1; m = 0 };                     /* wait(notEmpty, m) */
          d_step { w[1] == 2 && m == 0 -> w[1] = 0; m = 1 } /* its wake-up */
       :: else -> break
       od;
       h = head;
       x = buf[h];
       d_step { head = (h + 1) % N; h = 0 };
       t = count;
       d_step { count = t - 1; t = 0 };
       d_step { if :: w[0] == 1 -> w[0] = 2 :: else fi };  /* signal(notFull) */
       d_step { m = 0; assert(x == expect); expect = (expect + 1) % 3; x = 0 }
    od
}
