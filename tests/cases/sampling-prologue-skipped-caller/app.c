/* The binary of the golden case sampling-prologue-skipped-caller (README),
 * checked in as root/opt/fp/app (its addresses are the case's input.txt's):
 *   cc -O1 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o root/opt/fp/app app.c
 * gcc 12 on x86-64 (Debian 12): framed() sets up a frame around its call
 * of tick(), which sets up none (gcc 12's frameless leaf). */
__attribute__((noipa)) unsigned long tick(unsigned long x)
{
	return x + 1;
}

__attribute__((noipa)) unsigned long framed(unsigned long x)
{
	return tick(x);
}

__attribute__((noipa)) unsigned long caller(unsigned long n)
{
	unsigned long r = 0;

	for (unsigned long i = 0; i < n; i++)
		r = framed(r);
	return r;
}

int main(void)
{
	return (int)(caller(1000000000) & 1);
}
