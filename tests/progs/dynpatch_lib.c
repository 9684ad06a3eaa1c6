/* A shared library built without instrumentation (t0345): dp_libfn's first instruction loads through rip. */
volatile long dp_lib_bias = 7;

long dp_libfn(long x)
{
	return 2 * x + dp_lib_bias;
}
