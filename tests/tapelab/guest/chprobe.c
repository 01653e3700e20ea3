/* tests/tapelab/guest/chprobe.c: a small probe of the Linux ch driver for
 * the tape lab's FINDINGS.md: what its ioctls answer (return values, errno,
 * the element status and flags), so the findings read off real kernel
 * behaviour, root or not.
 *
 *   chprobe params DEV              CHIOGPARAMS
 *   chprobe elements DEV            CHIOGELEM (volume tags asked) for every element
 *   chprobe move DEV FROM TO        CHIOMOVE; FROM/TO as TYPE:UNIT, TYPE one of
 *                                   slot, drive, portal (0-based units)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/chio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *type_name(int t)
{
	switch (t) {
	case CHET_MT: return "transport";
	case CHET_ST: return "slot";
	case CHET_IE: return "portal";
	case CHET_DT: return "drive";
	}
	return "?";
}

static int parse_el(const char *s, int *type, int *unit)
{
	const char *c = strchr(s, ':');
	if (!c) return -1;
	if (!strncmp(s, "slot", c - s)) *type = CHET_ST;
	else if (!strncmp(s, "drive", c - s)) *type = CHET_DT;
	else if (!strncmp(s, "portal", c - s)) *type = CHET_IE;
	else return -1;
	*unit = atoi(c + 1);
	return 0;
}

static void tag(const char *name, const char *t)
{
	char b[37];
	memcpy(b, t, 36);
	b[36] = 0;
	int n = 36;
	while (n > 0 && (b[n - 1] == ' ' || b[n - 1] == 0)) b[--n] = 0;
	printf(" %s='%s'", name, b);
}

static void element(int fd, int type, int unit)
{
	struct changer_get_element e;
	memset(&e, 0, sizeof e);
	e.cge_type = type;
	e.cge_unit = unit;
	e.cge_flags = CGE_PVOLTAG | CGE_AVOLTAG;
	if (ioctl(fd, CHIOGELEM, &e) < 0) {
		printf("%s %d: CHIOGELEM errno %s\n", type_name(type), unit, strerror(errno));
		return;
	}
	int s = e.cge_status;
	printf("%s %d: status=0x%02x%s%s%s%s%s%s flags=0x%02x", type_name(type), unit, s,
	       s & CESTATUS_FULL ? " FULL" : "", s & CESTATUS_IMPEXP ? " IMPEXP" : "",
	       s & CESTATUS_EXCEPT ? " EXCEPT" : "", s & CESTATUS_ACCESS ? " ACCESS" : "",
	       s & CESTATUS_EXENAB ? " EXENAB" : "", s & CESTATUS_INENAB ? " INENAB" : "",
	       e.cge_flags);
	if (e.cge_flags & CGE_ERRNO) printf(" errno=%d(%s)", e.cge_errno, strerror(e.cge_errno));
	if (e.cge_flags & CGE_SRC)
		printf(" src=%s:%d%s", type_name(e.cge_srctype), e.cge_srcunit,
		       e.cge_flags & CGE_INVERT ? " inverted" : "");
	if (e.cge_flags & CGE_IDLUN) printf(" id=%d lun=%d", e.cge_id, e.cge_lun);
	if (e.cge_flags & CGE_PVOLTAG) tag("pvoltag", e.cge_pvoltag);
	if (e.cge_flags & CGE_AVOLTAG) tag("avoltag", e.cge_avoltag);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: chprobe params|elements|move DEV [FROM TO]\n");
		return 2;
	}
	setvbuf(stdout, 0, _IOLBF, 0);
	const char *op = argv[1], *dev = argv[2];
	int fd = open(dev, O_RDWR);
	if (fd < 0) {
		printf("open(%s, O_RDWR) = -1 errno %s\n", dev, strerror(errno));
		return 1;
	}
	struct changer_params p;
	if (ioctl(fd, CHIOGPARAMS, &p) < 0) {
		printf("CHIOGPARAMS = -1 errno %s\n", strerror(errno));
		return 1;
	}
	if (!strcmp(op, "params")) {
		printf("CHIOGPARAMS: transports=%d slots=%d portals=%d drives=%d\n",
		       p.cp_npickers, p.cp_nslots, p.cp_nportals, p.cp_ndrives);
		return 0;
	}
	if (!strcmp(op, "elements")) {
		int i;
		for (i = 0; i < p.cp_npickers; i++) element(fd, CHET_MT, i);
		for (i = 0; i < p.cp_ndrives; i++) element(fd, CHET_DT, i);
		for (i = 0; i < p.cp_nslots; i++) element(fd, CHET_ST, i);
		for (i = 0; i < p.cp_nportals; i++) element(fd, CHET_IE, i);
		return 0;
	}
	if (!strcmp(op, "move") && argc == 5) {
		struct changer_move m;
		memset(&m, 0, sizeof m);
		if (parse_el(argv[3], &m.cm_fromtype, &m.cm_fromunit) ||
		    parse_el(argv[4], &m.cm_totype, &m.cm_tounit)) {
			fprintf(stderr, "chprobe: elements are slot:N, drive:N or portal:N\n");
			return 2;
		}
		double t0 = now();
		int r = ioctl(fd, CHIOMOVE, &m);
		int e = errno;
		printf("CHIOMOVE %s -> %s = %d%s%s after %.2f s\n", argv[3], argv[4], r,
		       r < 0 ? " errno " : "", r < 0 ? strerror(e) : "", now() - t0);
		return r < 0;
	}
	fprintf(stderr, "chprobe: unknown operation %s\n", op);
	return 2;
}
