/* tests/tapelab/guest/mtprobe.c: a small probe of the Linux st driver for
 * the tape lab's FINDINGS.md. It prints what the driver returns (return
 * values, errno, MTIOCGET status bits) for one operation on a tape node, so
 * the findings can be read off real kernel behaviour.
 *
 *   mtprobe status DEV             open O_NONBLOCK, MTIOCGET
 *   mtprobe open DEV               blocking open O_RDWR, timed
 *   mtprobe write DEV BYTES COUNT  write COUNT records; report every change
 *   mtprobe read DEV BYTES         read records until two 0 returns in a row
 *   mtprobe eom DEV BYTES          write until the first failure and 40 writes
 *                                  more (or 8 failures in a row), then close
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mtio.h>
#include <time.h>
#include <unistd.h>

#ifndef GMT_CLN
#define GMT_CLN(x) ((x) & 0x00008000) /* from linux/mtio.h */
#endif

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void bits(int fd, const char *when)
{
	struct mtget g;
	if (ioctl(fd, MTIOCGET, &g) < 0) {
		printf("  [%s] MTIOCGET: %s\n", when, strerror(errno));
		return;
	}
	long s = g.mt_gstat;
	printf("  [%s] gstat=0x%08lx file=%d blk=%d blksize=%ld:%s%s%s%s%s%s%s%s%s\n", when, s,
	       g.mt_fileno, g.mt_blkno,
	       (long)((g.mt_dsreg & MT_ST_BLKSIZE_MASK) >> MT_ST_BLKSIZE_SHIFT),
	       GMT_EOF(s) ? " EOF" : "", GMT_BOT(s) ? " BOT" : "", GMT_EOT(s) ? " EOT" : "",
	       GMT_EOD(s) ? " EOD" : "", GMT_WR_PROT(s) ? " WR_PROT" : "",
	       GMT_ONLINE(s) ? " ONLINE" : "", GMT_DR_OPEN(s) ? " DR_OPEN" : "",
	       GMT_IM_REP_EN(s) ? " IM_REP_EN" : "", GMT_CLN(s) ? " CLN" : "");
}

static int openit(const char *dev, int flags)
{
	double t0 = now();
	int fd = open(dev, flags);
	int e = errno;
	printf("open(%s, %s%s) = %d%s%s after %.2f s\n", dev,
	       (flags & O_ACCMODE) == O_RDONLY ? "O_RDONLY" : "O_RDWR",
	       flags & O_NONBLOCK ? "|O_NONBLOCK" : "", fd, fd < 0 ? " errno " : "",
	       fd < 0 ? strerror(e) : "", now() - t0);
	errno = e;
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: mtprobe status|open|write|read|eom DEV [BYTES [COUNT]]\n");
		return 2;
	}
	const char *op = argv[1], *dev = argv[2];
	size_t bs = argc > 3 ? strtoul(argv[3], 0, 0) : 262144;
	long count = argc > 4 ? atol(argv[4]) : 1;
	char *buf = malloc(bs ? bs : 1);
	memset(buf, 0x5a, bs);
	setvbuf(stdout, 0, _IOLBF, 0);

	if (!strcmp(op, "status")) {
		int fd = openit(dev, O_RDONLY | O_NONBLOCK);
		if (fd >= 0) { bits(fd, "status"); close(fd); }
		return 0;
	}
	if (!strcmp(op, "open")) {
		int fd = openit(dev, O_RDWR);
		if (fd >= 0) { bits(fd, "open"); close(fd); }
		return 0;
	}
	if (!strcmp(op, "write") || !strcmp(op, "eom")) {
		int fd = openit(dev, O_RDWR);
		if (fd < 0) return 1;
		bits(fd, "before");
		long done = 0, fails = 0, i, firstfail = -1;
		ssize_t last = -2; int lasterr = -1;
		for (i = 0; strcmp(op, "eom") ? i < count
				 : fails < 8 && (firstfail < 0 || i < firstfail + 40); i++) {
			ssize_t n = write(fd, buf, bs);
			int e = n < 0 ? errno : 0;
			if (n != last || e != lasterr || firstfail >= 0) {
				printf("write #%ld of %zu = %zd%s%s (after %ld bytes)\n", i + 1, bs, n,
				       n < 0 ? " errno " : "", n < 0 ? strerror(e) : "", done);
				bits(fd, "after");
			}
			last = n; lasterr = e;
			if (n > 0) { done += n; fails = 0; } else { fails++; if (firstfail < 0) firstfail = i; }
		}
		printf("%ld writes, %ld bytes accepted\n", i, done);
		double t0 = now();
		int r = close(fd);
		printf("close = %d%s%s (%.2f s)\n", r, r ? " errno " : "", r ? strerror(errno) : "", now() - t0);
		return 0;
	}
	if (!strcmp(op, "read")) {
		int fd = openit(dev, O_RDONLY);
		if (fd < 0) return 1;
		bits(fd, "before");
		long done = 0, zeros = 0, i;
		ssize_t last = -2; int lasterr = -1;
		for (i = 0; zeros < 2 && i < 100000; i++) {
			ssize_t n = read(fd, buf, bs);
			int e = n < 0 ? errno : 0;
			if (n != last || e != lasterr) {
				printf("read #%ld of %zu = %zd%s%s (after %ld bytes)\n", i + 1, bs, n,
				       n < 0 ? " errno " : "", n < 0 ? strerror(e) : "", done);
				bits(fd, "after");
			}
			last = n; lasterr = e;
			if (n > 0) { done += n; zeros = 0; } else if (n == 0) zeros++; else break;
		}
		printf("%ld reads, %ld bytes\n", i, done);
		close(fd);
		return 0;
	}
	fprintf(stderr, "mtprobe: unknown operation %s\n", op);
	return 2;
}
