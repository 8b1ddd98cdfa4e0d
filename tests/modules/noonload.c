/* noonload.c -- a shared object that is not a module: it exports no
 * RedisModule_OnLoad, and loading it must fail (tests/unit/moduleapi.tcl). */
int not_a_module(int x);
int not_a_module(int x) { return x + 1; }
