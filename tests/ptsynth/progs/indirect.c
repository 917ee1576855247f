/* ptsynth test program: calls through function pointers and a switch
 * compiled to a jump table (indirect jumps within a function). */
volatile int sink;

__attribute__((noinline)) int add(int x) { return x + 1; }
__attribute__((noinline)) int twice(int x) { return x * 2; }
__attribute__((noinline)) int neg(int x) { return -x; }

static int (*const ops[])(int) = { add, twice, neg };

__attribute__((noinline)) int dispatch(int op, int x)
{
	switch (op) {
	case 0: return x + 11;
	case 1: return x * 7;
	case 2: return x - 5;
	case 3: return x ^ 0x55;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return ~x;
	default: return x;
	}
}

int main(void)
{
	int x = 1;

	for (int i = 0; i < 6; i++) {
		x = ops[i % 3](x);
		x = dispatch(i, x);
	}
	sink = x;
	return 0;
}
