/* ptsynth test program: recursion 100 deep, then a second shallow one. */
__attribute__((noinline)) int down(int n)
{
	if (n == 0)
		return 0;
	return 1 + down(n - 1) * 1;
}

volatile int sink;

int main(void)
{
	sink = down(100);
	sink += down(3);
	return sink != 103;
}
