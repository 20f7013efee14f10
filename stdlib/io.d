/*
 * crumbs' standard D library: the I/O provider's arguments (the Dynamic Tracing Guide's
 * bufinfo_t, devinfo_t and fileinfo_t), translated from the kernel's struct request, which
 * io:::start and io:::done are built on (block_rq_issue, block_rq_complete). Read by
 * programs that use the io provider or name these types (spec §6.11).
 */

typedef char *caddr_t;

struct bufinfo {
	int	b_flags;	/* B_READ or B_WRITE, B_ASYNC unless synchronous, B_PHYS */
	size_t	b_bcount;	/* bytes */
	caddr_t	b_addr;		/* 0: a request's pages have no one address */
	uint64_t b_lblkno;	/* the first 512-byte sector on the device */
	uint64_t b_blkno;	/* the same */
	size_t	b_resid;	/* 0 */
	size_t	b_bufsize;	/* bytes, as b_bcount */
	caddr_t	b_iodone;	/* the completion routine, if the request has one */
	int	b_error;	/* 0 */
	dev_t	b_edev;		/* the device (partition) number, as the kernel encodes it */
};
typedef struct bufinfo bufinfo_t;

struct devinfo {
	int	dev_major;
	int	dev_minor;
	int	dev_instance;	/* the partition number, 0 for the whole disk */
	char	dev_name[32];	/* the disk's name (vda) */
	char	dev_statname[32];	/* the disk or partition's name (vda, vda1) */
	char	dev_pathname[40];	/* /dev/ and that name */
};
typedef struct devinfo devinfo_t;

struct fileinfo {
	char	fi_name[16];	/* "<unknown>": a block request knows no file */
	char	fi_dirname[16];
	char	fi_pathname[16];
	loff_t	fi_offset;	/* -1 */
	char	fi_fs[16];
	char	fi_mount[16];
	int	fi_oflags;	/* 0 */
};
typedef struct fileinfo fileinfo_t;

inline int B_BUSY = 0x000001;
inline int B_DONE = 0x000002;
inline int B_ERROR = 0x000004;
inline int B_PAGEIO = 0x000010;
inline int B_PHYS = 0x000020;
inline int B_READ = 0x000040;
inline int B_WRITE = 0x000100;
inline int B_ASYNC = 0x000400;

/* cmd_flags: the operation in the low 8 bits (REQ_OP_READ 0, REQ_OP_WRITE 1, ...; odd
   operations write), REQ_SYNC is bit 11. The partition's number is its minor number less
   the disk's first. */
translator bufinfo_t < struct request *R > {
	b_flags = ((R->cmd_flags & 1) ? B_WRITE : B_READ) | ((R->cmd_flags & 0x800) ? 0 : B_ASYNC) | B_PHYS;
	b_bcount = R->__data_len;
	b_addr = 0;
	b_lblkno = R->__sector;
	b_blkno = R->__sector;
	b_resid = 0;
	b_bufsize = R->__data_len;
	b_iodone = (caddr_t)R->end_io;
	b_error = 0;
	b_edev = R->part ? R->part->bd_dev : 0;
};

translator devinfo_t < struct request *R > {
	dev_major = R->part ? getmajor(R->part->bd_dev) : 0;
	dev_minor = R->part ? getminor(R->part->bd_dev) : 0;
	dev_instance = R->part ? getminor(R->part->bd_dev) - R->q->disk->first_minor : 0;
	dev_name = stringof(R->q->disk->disk_name);
	dev_statname = R->part && getminor(R->part->bd_dev) != R->q->disk->first_minor ?
	    strjoin(stringof(R->q->disk->disk_name), lltostr(getminor(R->part->bd_dev) - R->q->disk->first_minor)) :
	    stringof(R->q->disk->disk_name);
	dev_pathname = R->part && getminor(R->part->bd_dev) != R->q->disk->first_minor ?
	    strjoin(strjoin("/dev/", stringof(R->q->disk->disk_name)), lltostr(getminor(R->part->bd_dev) - R->q->disk->first_minor)) :
	    strjoin("/dev/", stringof(R->q->disk->disk_name));
};

translator fileinfo_t < struct request *R > {
	fi_name = "<unknown>";
	fi_dirname = "<unknown>";
	fi_pathname = "<unknown>";
	fi_offset = -1;
	fi_fs = "<unknown>";
	fi_mount = "<unknown>";
	fi_oflags = 0;
};

/* The same from a bio, for io:::wait-start and io:::wait-done (submit_bio_wait's). */
translator bufinfo_t < struct bio *B > {
	b_flags = ((B->bi_opf & 1) ? B_WRITE : B_READ) | ((B->bi_opf & 0x800) ? 0 : B_ASYNC) | B_PHYS;
	b_bcount = B->bi_iter.bi_size;
	b_addr = 0;
	b_lblkno = B->bi_iter.bi_sector;
	b_blkno = B->bi_iter.bi_sector;
	b_resid = 0;
	b_bufsize = B->bi_iter.bi_size;
	b_iodone = (caddr_t)B->bi_end_io;
	b_error = 0;
	b_edev = B->bi_bdev ? B->bi_bdev->bd_dev : 0;
};

translator devinfo_t < struct bio *B > {
	dev_major = B->bi_bdev ? getmajor(B->bi_bdev->bd_dev) : 0;
	dev_minor = B->bi_bdev ? getminor(B->bi_bdev->bd_dev) : 0;
	dev_instance = B->bi_bdev ? getminor(B->bi_bdev->bd_dev) - B->bi_bdev->bd_disk->first_minor : 0;
	dev_name = B->bi_bdev ? stringof(B->bi_bdev->bd_disk->disk_name) : "<none>";
	dev_statname = B->bi_bdev && getminor(B->bi_bdev->bd_dev) != B->bi_bdev->bd_disk->first_minor ?
	    strjoin(stringof(B->bi_bdev->bd_disk->disk_name), lltostr(getminor(B->bi_bdev->bd_dev) - B->bi_bdev->bd_disk->first_minor)) :
	    B->bi_bdev ? stringof(B->bi_bdev->bd_disk->disk_name) : "<none>";
	dev_pathname = B->bi_bdev && getminor(B->bi_bdev->bd_dev) != B->bi_bdev->bd_disk->first_minor ?
	    strjoin(strjoin("/dev/", stringof(B->bi_bdev->bd_disk->disk_name)), lltostr(getminor(B->bi_bdev->bd_dev) - B->bi_bdev->bd_disk->first_minor)) :
	    B->bi_bdev ? strjoin("/dev/", stringof(B->bi_bdev->bd_disk->disk_name)) : "<none>";
};

translator fileinfo_t < struct bio *B > {
	fi_name = "<unknown>";
	fi_dirname = "<unknown>";
	fi_pathname = "<unknown>";
	fi_offset = -1;
	fi_fs = "<unknown>";
	fi_mount = "<unknown>";
	fi_oflags = 0;
};
