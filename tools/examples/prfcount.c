/* prfcount: kernel, user and idle samples of a prf device, with libprf. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libprf.h"

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : PRF_DEVICE;
	unsigned long long kernel = 0;
	uint64_t *c = NULL;
	struct prf *p = NULL;
	int i, n, r = prf_open(dev, O_RDONLY, &p);

	if (!r && (r = n = prf_get_size(p)) > 0 && (c = calloc(n + 2, 8)) &&
	    !(r = prf_read(p, NULL, c, n))) {
		for (i = 0; i < n; i++)
			kernel += c[i];
		printf("%s: %d addresses: kernel %llu user %llu idle %llu\n", dev, n,
		       kernel, (unsigned long long)c[n], (unsigned long long)c[n + 1]);
	}
	if (r < 0)
		fprintf(stderr, "prfcount: %s: %s\n", dev, strerror(-r));
	else if (!c)
		fprintf(stderr, "prfcount: %s: no table loaded\n", dev);
	free(c);
	prf_close(p);
	return r < 0 || !c;
}
