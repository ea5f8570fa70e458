/* SPDX-License-Identifier: MIT */
#ifndef FASTIO_TUNE_H
#define FASTIO_TUNE_H

/*
 * Every measured constant of libfastio, with the measurement behind it
 * (the programs keep theirs: cat.c, pipebench.c),
 * each figure tagged with its machine (BENCHMARKS.md has them all): 2-core
 * VMs, Debian 12, kernel 6.18.44 builds fc-v669 (an AMD EPYC until
 * 2026-11, an Intel Xeon since: figures dated 2026-11-25), fc-v769 and
 * fc-v782 (an AMD EPYC, figures dated 2026-11-26).
 * bench/machine.c: on fc-v769 a null syscall costs ~1 us and a pipe
 * wake-up across CPUs 9-13 us; on the Xeon fc-v669 76-95 ns and 30-41 us;
 * on the EPYC fc-v669 wake-ups were cheap (not measured); on fc-v782
 * 178-280 ns and 5.4-7.8 us. A constant is
 * chosen by its worst ratio to the best choice (or the best peer) over
 * every machine measured.
 * Unless a figure says otherwise: GiB/s of `yes` into a reader, producer
 * on CPU 0 and reader on CPU 1, medians of 3-5 interleaved runs; "splice"
 * is a reader that splices to /dev/null, "read" one that read()s 128 KiB
 * at a time. The #ifndef guards exist only so a benchmark can build
 * variants with -D: `make bench-sweep SWEEP="NAME VALUE VALUE..."`
 * (bench/sweep.sh) builds one per value and prints each one's worst ratio
 * to the best over every placement and reader, with the machine line.
 */

/* Project rule: no call that moves bytes asks for more than 1 GiB. */
#define FIO_MAX_IO ((size_t)1 << 30)

/* Transparent huge page size on x86-64: the vmsplice buffer's alignment. */
#define FIO_HUGE_PAGE ((size_t)2 << 20)

/*
 * Pipe size asked for with F_SETPIPE_SZ; also the default pipe-max-size,
 * so unprivileged users get it (a reader that grows its pipe to 1 MiB,
 * as pipebench does, decides it anyway). fc-v669, tee strategy with rounds
 * of the pipe's size, splice/read reader: 64 KiB 3.4/2.8, 256 KiB
 * 12.8/12.3, 1 MiB 37.1/31.7, 4 MiB 39.3/32.4. cat also grows its output
 * pipe to this: `cat -n` of 500 MB of text into a read() reader took
 * 846-896 ms with the default 64 KiB pipe, 396-430 ms with 1 MiB (writing
 * 8 KiB or 16 KiB pieces into the small pipe instead: 475-499 ms).
 * 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26), `make
 * bench-sweep SWEEP="FIO_PIPE_SIZE 524288 1048576"` RUNS=7, yes, and cat of
 * 2 GB (ext4, tmpfs), both readers, every placement: within 6% everywhere
 * (yes into --touch 19.5 / 18.4, 16.5 / 15.5, 9.2 / 8.6) but one cell, cat
 * of ext4 into --touch free 2.09 / 1.67 (worst 0.98x / 0.80x), which two
 * focused passes of 9 runs put level (1.72 / 1.76, 1.89 / 1.81; yes
 * --touch free 17.2 / 17.3, 16.2 / 13.6, runs spread 11-19). 512 KiB is
 * not measured on the Xeon, where 256 KiB ran at a third of 1 MiB's rate:
 * 1 MiB stays.
 */
#ifndef FIO_PIPE_SIZE
#define FIO_PIPE_SIZE ((size_t)1 << 20)
#endif

/*
 * vmsplice chunk = pipe capacity / this (GNU's development tree uses 4);
 * the vmsplice strategy runs where tee() is refused. `yes`, GiB/s:
 *   fc-v669 (an EPYC then, 2026-11-21, the code of then), splice/read
 *     reader: /1 28.0/22.2, /4 31.2/22.9.
 *   6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26,
 *     null syscall 211 ns, wake-up 6.5 us across CPUs), FASTIO_DISABLE=tee
 *     `make bench-sweep` WORKLOADS=yes RUNS=7, /1 / /2 / /4: splicing
 *     reader free 66.7 / 66.5 / 58.4, split 63.6 / 61.8 / 55.6, same
 *     37.3 / 38.2 / 36.6; read() reader free 15.9 / 16.4 / 16.3, split
 *     12.5 / 12.9 / 12.2, same 8.2 / 8.0 / 8.3. Two passes of 9 runs,
 *     splicing reader: free 41.6 / 41.3 / 31.7 and 59.9 / 60.2 / 54.3,
 *     split 59.7 / 57.1 / 53.4 and 60.3 / 59.7 / 52.6.
 * Worst ratio to the best divisor of a cell: /1 0.90x (fc-v669; 0.97x on
 * fc-v782), /4 0.76x (fc-v782), /2 0.96x on fc-v782 alone: /1, a
 * pipeful a call, also the fewest calls.
 */
#ifndef FIO_VMSPLICE_DIVISOR
#define FIO_VMSPLICE_DIVISOR 1
#endif

/*
 * write() size into a pipe (when tee and vmsplice are refused). A write
 * that fills the pipe makes writer and reader take turns; small ones let
 * them overlap and keep the source in L1. splice/read reader, GiB/s:
 *   fc-v669, split: 4 KiB 8.5/5.2, 8 KiB 14.1/6.7, 16 KiB 5.6/3.9,
 *     64 KiB 3.1/2.2, 256 KiB 3.3/2.0.
 *   fc-v769, free (split alike), 5 runs: 4 KiB 2.8/2.3, 8 KiB 3.8/3.1,
 *     16 KiB 4.3/3.6, 64 KiB 5.7/4.4, 256 KiB 4.4/3.4, 1 MiB 4.0/3.0
 *     (GNU 9.10, 8 KiB: 3.7/2.9).
 * Worst ratio to the best size on the other machine: 8 KiB 0.66x, 16 KiB
 * 0.40x, 64 KiB 0.22x: 8 KiB, GNU's size.
 */
#ifndef FIO_PIPE_WRITE_CHUNK
#define FIO_PIPE_WRITE_CHUNK ((size_t)8 << 10)
#endif

/*
 * write() size for outputs that are not pipes. fc-v669, `yes` into a 2 GB
 * file, GiB/s, 3 runs: tmpfs 8 KiB 0.5-2.2, 128 KiB 2.6-2.8, 1 MiB 2.7-2.9;
 * ext4 0.4-0.8, 1.0-2.5, 1.4-4.9 (disk-bound, inconclusive). 128 KiB is GNU
 * cat's size too. 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC,
 * 2026-11-26), `yes` into a 512 MiB file (ulimit -f), wall time, two
 * passes of 9 and 11 interleaved runs, GB/s, 64 KiB / 128 KiB / 1 MiB:
 * tmpfs 1.37 / 1.26 / 1.59 and 1.52 / 1.48 / 1.56, ext4 0.96 / 0.97 /
 * 0.87 and 0.90 / 0.94 / 0.83; each cell's runs spread 20-50%, wider than
 * any difference, and the order changed between the passes (the time is
 * the kernel's: pages allocated, the last copy truncated). Inconclusive
 * again: 128 KiB stays, the smaller buffer.
 */
#ifndef FIO_WRITE_CHUNK
#define FIO_WRITE_CHUNK ((size_t)128 << 10)
#endif

/*
 * The tee source. The tee strategy's source pipe is written once
 * (fill_source), so its slots hold distinct pages, as uutils' do; it no
 * longer holds one page of patterns vmspliced into every slot. One hot
 * page keeps a read() reader's copies in L1, but on the Xeon of
 * 6.18.44-fc-v669 it halves a splicing reader, while 64-256 distinct
 * vmspliced pages (of one huge page or not), 1-64 written pages tee()d
 * into every slot, or 64-128 of 256 slots written help little. GB/s, one
 * page / written, 5 interleaved runs each:
 *   fc-v669 (Xeon, 2026-11-25): splice reader free 14.7/31.2, split
 *     14.7/22.0 (15.4/31.3 in another run), same CPU 79.5/66.6; read
 *     reader free 25.7/15.6, split 24.5/19.0, same CPU 22.2/18.8
 *     (uutils 0.12 in the same runs: 28.2, 25.7, 66.8; 15.8, 20.7, 18.8).
 *   fc-v769 (EPYC, 1 MiB rounds): splice reader free 61.2/56.2, split
 *     55.6/53.5, same CPU 37.2/42.5; read reader split 14.8/9.6.
 * Worst ratio to the better of the two over both machines: one page
 * 0.47x (fc-v669, splice, free), written 0.61x (fc-v669, read, free;
 * fc-v769's read 0.65x): written.
 */

/*
 * Where bytes sit within their pages. The kernel copies between a pipe's
 * or the page cache's pages and a reader's buffer with `rep movsb`, and on
 * the EPYC of 6.18.44-fc-v657 that copy runs at 1.4-2 GB/s instead of
 * 9-20 when the buffer starts 16 bytes into a page, which is where glibc's
 * malloc() puts a large buffer, while the data starts at the top of its
 * pages, as it does when a pipe is filled by write() or from the page
 * cache (a reader of 1 GiB per run, our vmsplice producer, GB/s, buffer
 * offset 0 / 16: stream at page offset 0: 9.0-14.4 / 1.4-1.7; at 64:
 * 9.8-14.1 / 13.8-15.6; at 2048: 13.9-17.5 / 2.5-3.0; at 16: 4.3-5.3 /
 * 4.3-5.1; in a user-space loop of rep movsb, destination - source modulo
 * 4 KiB of 8 or 16 gives 1.7 GB/s, 0 and 32-4088 39-72).
 * So every reader with a malloc()'d buffer pays it behind GNU's, uutils'
 * and our own yes alike (`yes | pipebench --touch`, 1.4-1.6 GB/s whoever
 * the producer on fc-v657), and our cat's formatter paid it on its reads:
 * cat -A of 500 MB 0.41 s, of which 0.25 s in read(); with page-aligned
 * buffers (fio_buffer_alloc), 0.17 s.
 * FIO_STREAM_PHASE shifts what the vmsplice strategy hands the pipe by
 * whole patterns so that its stream starts this far into a page: 64 is
 * fast for readers at offsets 0 and 16 alike (above). Into pipebench
 * --touch (malloc()'d buffer), 2 GiB, 5 interleaved runs, fc-v657:
 * vmsplice at phase 0 1.58 GB/s, at 64 13.14 (uutils 0.12 1.44, GNU HEAD
 * 1.54). The tee strategy's buffers stay slow for such a reader whatever
 * their phase (page offset 64: 1.97 GB/s against 1.85 at 0, in the same
 * runs; one page or 64 distinct pages alike), and the vmsplice strategy
 * still loses to tee for a splicing reader (15.3 against 20.5 GB/s here,
 * GNU HEAD's 128 KiB vmsplices at 0.36x uutils' tee rounds on
 * fc-v769): by the worst case, tee stays first (FIO_TEE_ROUND). Since
 * 2026-11-26 the tee sources' slots drift instead (FIO_SLOT_SHORT).
 */
#define FIO_STREAM_PHASE ((size_t)64)

/*
 * Bytes per tee() round of the tee strategy (the output pipe stays at
 * FIO_PIPE_SIZE): a round that fills the output wakes the reader once per
 * pipeful; smaller rounds wake it once per round, and a wake-up is what
 * one of our machines makes dear. Ratio to the best peer (uutils 0.12,
 * itself 1 MiB rounds), splice/read reader, medians of 5-7 interleaved
 * runs:
 *   6.18.44-fc-v669 (wake-ups far cheaper than on fc-v769; measured
 *     before bench/machine.c existed), split:
 *     64 KiB 54.4/29.6 GiB/s (0.92x/1.42x), 1 MiB 36.6/33.0 (0.62x/1.59x)
 *     in one run, 50.7/32.8 (1.00x/1.57x) in another; free 27-39/32-33
 *     against 33-35/21-22 (0.83x-1.12x/1.5x).
 *   6.18.44-fc-v769 (null syscall 1.0-1.1 us, wake-up 9-13 us across
 *     CPUs, bench/machine.c): 64 KiB 12.0/12.3 GiB/s (0.21x/1.22x);
 *     1 MiB free 61.2/14.4 (1.08x/1.43x), split 55.6/14.8 (1.11x/1.53x),
 *     same CPU 37.2/8.9 (1.04x/1.17x).
 *   6.18.44-fc-v669 (Xeon, 2026-11-25, null syscall 81 ns, wake-up
 *     30-34 us; written source), 2 passes of 7 interleaved runs, GB/s,
 *     1 MiB / 512 KiB / 256 KiB: splice free 24.1-24.8/16.5-20.5/
 *     15.3-16.5, split 24.7-25.2/16.8-18.5/15.5-16.8, same 60-65 all
 *     three; read free 14.6-15.4/16.7-17.4/16.4-16.6, split 17.2-20.8/
 *     16.2-17.3/16.5-17.1, same 16.6-16.7/17.6-18.3/17.8-18.4 (uutils
 *     23.1-25.4, 24.9-26.7, 60-64; 15.3-15.9, 15.4-17.6, 16.4-16.9). A round
 *     smaller than the pipe puts each source page in the pipe twice or
 *     more, which the splicing reader pays for ("The tee source").
 *   6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26, null
 *     syscall 275 ns, wake-up 7.1 us; slots 32 bytes short), `make
 *     bench-sweep` WORKLOADS=yes RUNS=7, GB/s, 512 KiB / 1 MiB: splice
 *     free 66.5/67.3, split 59.6/76.7, same 37.4/36.9; read free
 *     14.3/13.2, split 13.9/13.7, same 8.6/11.1. Worst 512 KiB 0.78x,
 *     1 MiB 0.92x.
 * Worst case: 64 KiB 0.21x, 256 KiB 0.61x, 512 KiB 0.66x, 1 MiB 0.62x
 * on fc-v669's EPYC days and 0.88x on its Xeon (typically 0.9x-1.1x),
 * 0.92x on fc-v782: 1 MiB.
 */
#ifndef FIO_TEE_ROUND
#define FIO_TEE_ROUND ((size_t)1 << 20)
#endif

/*
 * The tee source turns hot (one page of patterns in every slot) when the
 * reader takes small bites: of the first FIO_HOT_PROBE rounds, half or
 * more needed FIO_HOT_BITE splices or more to move into the output.
 * A reader that splices empties the pipe in one or two big moves; one
 * that read()s frees a few slots at a time and our splice stops at each
 * full pipe. The count is what the reader did, not how long it took.
 * Splices a round, 900 rounds each, fc-v669 (Xeon, 2026-11-25, null
 * syscall 76-82 ns, wake-up 31-33 us): pipebench splicing, free / split /
 * same: 1-2 in every round; pipebench --touch (128 KiB reads): 3+ in
 * 706 / 867 / 747 rounds; our cat, pv, `dd bs=1M`: 1-2 (pv 3+ in 13% of
 * rounds); GNU cat 9.1, `wc -l`, `tr`: 3+ in 94-100%. (uutils' and GNU
 * HEAD's cat voted hot in none of 6 runs each, `dd bs=64K` in 6 of 6.)
 * (FIONREAD at a round's start cannot tell them apart: the pipe is full
 * then for both kinds, since a wake-up outlasts a round.) GB/s, 9 interleaved
 * runs, written source / voting / uutils 0.12 / GNU HEAD: --touch free 15.26
 * / 25.58 / 15.29 / 13.78, split 18.16 / 25.04 / 17.03 / 12.96, same 18.16
 * / 18.64 / 18.54 / 19.61; splicing reader free 29.9 / 35.1 / 30.2, split 31.2
 * / 31.4 / 32.0, same 62.0 / 62.0 / 62.3 (no vote for hot, 0 of 16 runs); `| wc
 * -l` 2.75 s / 2.20 s, into GNU cat 9.1 3.29 / 3.58 GB/s, `dd bs=64K`
 * 3.06 / 3.47, `tr` 1.03 / 1.04. The cost: a reader that splices in
 * small pieces gets the hot source, which halves a splicing reader here
 * ("The tee source"): 64 KiB splices 31-44 written, 20-32 voting (4 of 5
 * runs hot), 128 KiB 22-31 / 17-25 (2 of 5). Worst ratio over these
 * readers: written 0.60x (--touch free), voting 0.65x (64 KiB splices);
 * on fc-v769 one page cost a splicing reader nothing (tune.h, "The tee
 * source": 61.2 against 56.2 free) and gave the read() one 1.54x. make
 * bench with the vote (fc-v669, wake-up 14.7 us then), --touch free /
 * split / same: 20.40 / 16.91 / 20.28 GB/s, bench/ceiling.c's one page in
 * every slot 20.17 / 17.14 / 20.58, the best peer 16.92 / 13.75 / 17.31.
 */
#ifndef FIO_HOT_PROBE
#define FIO_HOT_PROBE 32u
#endif
#define FIO_HOT_BITE 3u

/*
 * Bytes a slot of either tee source holds less than a page. With full
 * pages the stream keeps one place in its pages (offset 0), and a reader
 * that read()s into a buffer 16 bytes into a page (malloc()'s) gets the
 * EPYC's slow copy ("Where bytes sit within their pages", above) for
 * every byte; a constant phase only moves the trouble to other buffers,
 * and a read that ends on a slot puts it back. Slots a little short make
 * the stream drift against the pages by this much a slot, so at most one
 * slot in 4096 / FIO_SLOT_SHORT meets the slow case, whatever the
 * reader's buffer and bites. Debian's uutils 0.0.17 drifts by accident:
 * its vmsplice()s are 16,382 bytes. 6.18.44-fc-v782 #1 SMP
 * PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26, null syscall 199-280 ns,
 * wake-up 5.6-7.7 us), GB/s, medians of 7 interleaved runs, full slots /
 * this value (32) / uutils 0.0.17 / uutils 0.12 / GNU HEAD:
 *   pipebench --touch (128 KiB reads; the source turns hot) free 1.87 /
 *   15.50 / 7.74 / 1.59 / 1.68, split 2.15 / 18.87 / 8.49 / 2.13 / 2.00,
 *   same CPU 1.83 / 10.47 / 6.30 / 1.90 / 1.66; with 1 MiB reads (no
 *   vote, written pages) free 1.97 / 13.86 / 8.61, split 2.14 / 14.28 /
 *   9.46, same 2.16 / 12.58 / 6.25; splicing reader free 65.2 / 64.6 /
 *   11.7 / 58.7, split 49.7 / 50.5, same 30.3 / 31.1 (runs 27-90: the
 *   0.8% more slots a byte is inside the noise); GNU dd (a page-aligned
 *   buffer) bs=128K, 1M, 4K: 117 / 112, 136 / 132, 683 / 696 ms for 2 GiB.
 * Short by 8: 12.7-18.6 GB/s into pipebench, but dd bs=128K 1.3x slower
 * (the copies lose 8-byte alignment); by 64: 9.9-16.2 (one slot in 64
 * slow). Written in bigger pieces (8 or 32 pages, each short by 32):
 * 1 MiB reads 10.3 / 6.6 GB/s, since a read that ends where a piece ends
 * makes the next piece slow. One write per slot costs 255 more calls at
 * the start: `yes | head -c 1`, 3 x 500 runs, 3.3-4.6 ms either way.
 * Not measured on the Xeon, whose copies were never slow for any place.
 */
#ifndef FIO_SLOT_SHORT
#define FIO_SLOT_SHORT ((size_t)32)
#endif

/* Chunk when the big buffer cannot be mapped (tight RLIMIT_AS); GNU's size. */
#define FIO_SMALL_CHUNK ((size_t)8 << 10)

/*
 * splice() size per call from a pipe (the pipes are grown to FIO_PIPE_SIZE
 * first). `yes | X | reader`, X = pipebench -Q or cat, our yes, reader
 * splicing / read()ing, GiB/s:
 *   fc-v669 (2026-11-22, wake-ups cheap; before bench/machine.c), X =
 *     pipebench, 7 runs, splicing reader: free 64 KiB 23.5, 256 KiB 21.9,
 *     1 MiB 29.6; split 20.1, 23.0, 23.8. X = cat, 3 runs: 64 KiB
 *     22-33/5.1-7.7, 256 KiB 23-37/8.3-8.9, 1 MiB 24-46/8.8-9.5.
 *   fc-v769 (null syscall 1.0 us, wake-up 9-13 us), X = cat, 7 runs:
 *     256 KiB 18.2/16.2, 1 MiB 23.5/17.9.
 *   6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 (2026-11-25, Xeon, null
 *     syscall 76 ns, wake-up 30-33 us across CPUs), medians of 7-9
 *     interleaved runs, three passes; 1 MiB / 512 KiB / 256 KiB:
 *     X = pipebench, splicing reader: free 13.0-18.8 / 22.8-24.1 /
 *     21.3-23.7, split 12.5-13.2 / 20.2-21.6 / 17.9-19.2, same CPU
 *     55.6-57.1 / 55.3-56.7 / 54.4-55.3; read() reader: free 12.9-14.5
 *     / 14.4-16.5 / 13.9-15.7, split 17.1-18.5 / 16.7-17.9 / 17.8-18.2.
 *     X = cat, splicing reader: free 13.4-14.7 / 22.6-24.7 / 19.1-23.7,
 *     split 12.3-14.1 / 21.0-21.2 / 17.7-20.9; read() reader free
 *     12.7-14.5 / 14.2-14.9 / 13.2-16.1, split 16.9-18.5 / 16.8-20.7 /
 *     17.0-18.2; same CPU within 3% for all three. (pv 1.6.20, which
 *     leaves its output pipe at 64 KiB and splices 128 KiB, ran 16-22.)
 *   6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (2026-11-26, AMD EPYC, null
 *     syscall 207 ns, wake-up 6.3 us across CPUs), medians of 7
 *     interleaved runs; 512 KiB / 768 KiB / 1 MiB: X = pipebench,
 *     splicing reader: free 36.7 / 36.9 / 40.6, yes and X on CPU 0 and
 *     the reader on CPU 1 40.4 / 38.0 / 54.6 (two more passes of 9:
 *     35.8-39.8 / 36.1-41.9 / 49.3-54.2), yes on CPU 0 and X with the
 *     reader on CPU 1 41.8 / 41.6 / 42.1, same CPU 27.6 / 27.9 / 28.2;
 *     read() reader 14.2 / 14.7 / 15.2, 18.7 / 18.7 / 19.0, 9.1 / 9.5 /
 *     9.4, 11.3 / 11.3 / 10.8. X = cat, splicing reader 38.7 / 39.4 /
 *     48.9, 42.9 / 42.6 / 49.5 (passes of 9: 45.6-47.6 / 43.1-43.4 /
 *     59.0-59.6), 27.7 / 26.3 / 27.8, 33.1 / 32.9 / 31.9; read() reader
 *     13.4 / 13.6 / 14.2, 16.1 / 15.9 / 15.6, 9.4 / 9.3 / 9.0, 11.5 /
 *     11.5 / 10.8. 256 KiB / 512 KiB / 1 MiB, splicing reader, yes and X
 *     on CPU 0: X = pipebench 34.4 / 39.1 / 53.9, cat 35.0 / 43.1 / 57.2;
 *     free: 29.1 / 40.0 / 41.3, 36.2 / 43.6 / 52.5.
 * Where a wake-up costs 30 us, a call that empties the input pipe and
 * fills the output one leaves both neighbours asleep until it ends; a
 * smaller move lets them overlap. Where it costs 6 us, a pipeful a call
 * wins when the producer shares a CPU with X. Worst ratio to the best size
 * of the same cell: 1 MiB 0.52x (fc-v669, 2026-11-25), 256 KiB 0.61x
 * (fc-v782, X = cat; 0.74x on fc-v669, 2026-11-22), 512 KiB 0.72x
 * (fc-v782, 2026-11-26, X = pipebench, yes and X on one CPU; 0.94x on
 * fc-v669), 768 KiB 0.73x (fc-v782; not measured on the Xeon): 512 KiB, by
 * 0.72x against 1 MiB's 0.52x. We know of no count short of timing that
 * tells the two machines apart; a rule that did would gain up to 1.38x
 * here.
 * Regular files go into a pipe through a private pipe, and the splice
 * from the file takes the same chunk (it took a pipeful, 1 MiB, until
 * 2026-11-25). cat of 2 GB cached, fc-v669 (Xeon, 2026-11-25), GB/s,
 * 1 MiB / 512 KiB / 128 KiB from the file, 5-6 passes of 7-9 interleaved
 * runs for the first two, 3 for 128 KiB: splicing reader free 21.5-31.5 /
 * 27.5-31.5 / 19.7-21.3, split 21.1-26.6 / 26.3-29.3 / 19.2-20.2, same
 * 44.8-47.7 / 43.7-46.6 / 41.1; read() reader free 6.32-7.19 / 6.42-7.18
 * / 7.29-7.45, split 6.56-7.11 / 6.58-7.08 / 7.46-7.63, same 6.31-6.66 /
 * 6.27-6.65 / 6.47 (busybox, which sendfile()s: splice 20.2-26.1, 47.3-49.7
 * same; read 6.44-6.85). The read() reader's gain at 128 KiB needs small
 * splices on both sides: 1 MiB from the file and 128 KiB into the output
 * gave it 6.88-7.12 (the splicing reader 17.8-18.4), 128 KiB from the file
 * and 512 KiB into the output 6.78-6.96. The same file on tmpfs (order-0
 * folios, where ext4 used huge ones), 3 passes of 7 runs (2 for 128 KiB),
 * 1 MiB / 512 KiB / 128 KiB: splicing reader free 37.7-38.1 / 33.9-35.1 /
 * 24.0-25.5, split 36.5-36.9 / 34.2-35.6 / 25.0-25.3, same 37.0 / 34.5;
 * read() reader free 7.46-7.65 / 7.35-7.40 / 8.01-8.14, split 7.44-7.58 /
 * 7.24-7.33 / 7.96-8.12, same 6.78 / 6.73 (busybox 16.9-19.3 and 7.0).
 * 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (2026-11-26, AMD EPYC, null
 * syscall 209 ns, wake-up 6.5 us across CPUs), `make bench-sweep
 * SWEEP="FIO_SPLICE_CHUNK 524288 1048576"` WORKLOADS=cat RUNS=7, 512 KiB
 * / 1 MiB: ext4 (ext2/ext3 driver) splicing reader free 54.3 / 57.1,
 * split 54.1 / 56.8, same 30.9 / 32.6; read() reader 2.36 / 2.35, 2.37 /
 * 2.34, 2.05 / 2.06; tmpfs splicing 25.4 / 28.0, 19.4 / 21.0, 16.9 /
 * 18.6; read() 2.35 / 2.32, 2.34 / 2.34, 1.94 / 1.95 (every read()
 * reader at this EPYC's slow copy).
 * Worst ratio to the best size of a cell over both file systems and both
 * machines: 1 MiB 0.80x (fc-v669, ext4; 0.99x on fc-v782), 512 KiB 0.89x
 * (fc-v669; 0.91x on fc-v782, tmpfs), 128 KiB 0.63x (fc-v669): 512 KiB.
 */
#ifndef FIO_SPLICE_CHUNK
#define FIO_SPLICE_CHUNK ((size_t)512 << 10)
#endif

/*
 * The chunk from a regular file into a pipe once the reader has voted for
 * small bites (pump.c, fio_vote_count: of the first FIO_HOT_PROBE full
 * chunks, half or more took FIO_HOT_BITE splices or more to go out). A
 * reader that read()s 128 KiB at a time keeps its writer busy instead of
 * asleep on a full pipe with 128 KiB chunks (FIO_SPLICE_CHUNK above); one
 * that splices wants 512 KiB, and never votes. 6.18.44-fc-v669 (Xeon,
 * 2026-11-25, null syscall 80 ns, wake-up 36.7 us across CPUs), cat of
 * 2 GB cached, GB/s, medians of 7 interleaved runs, 512 KiB always /
 * 128 KiB always / vote:
 *   ext4, pipebench --touch: free 7.03/7.63/7.55 and 6.80/7.52/7.54,
 *     split 7.04/7.52/7.63, same CPU 6.56/6.56/6.56 (uutils 0.0.17, the
 *     best peer there: 7.37, 7.20, 7.16, 6.43); splicing pipebench: free
 *     30.8/19.6/27.5 and 35.2/21.1/30.8, then 512 KiB against the vote in
 *     three passes of 9 runs, two rows each: 30.1, 29.4 / 30.1, 31.2;
 *     31.5, 28.4 / 26.9, 31.5; 29.2, 30.0 / 29.3, 29.9 (the same code:
 *     strace shows no vote), split 24.6 / 28.3, same 47.5 / 47.8.
 *   tmpfs: --touch 7.49/8.09/8.10, splicing 33.6/24.4/33.9.
 *   Other readers, ms, hyperfine, 9 runs, 512 KiB / vote: `wc -l` 346/343,
 *     GNU cat 9.1 285/272, `pv -q` 72/65, md5sum 3667/3643, `dd bs=64K`
 *     292/287 (strace: GNU cat, `wc -l` and --touch vote for 128 KiB,
 *     pv and the splicing pipebench do not).
 * Worst ratio to the best of the three in a cell: 512 KiB always 0.88x
 * (--touch), 128 KiB always 0.58x (splicing), the vote 0.85x in one pass
 * of the splicing reader, where it runs the same code as 512 KiB (its
 * other passes 1.0x-1.1x): the vote. Not measured where a syscall costs
 * 1 us (fc-v769): 128 KiB there is 16,000 more splices per 2 GB.
 * 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26, null
 * syscall 270 ns, wake-up 7.3 us), `make bench-sweep` WORKLOADS=cat
 * RUNS=7, the bite 128 / 256 / 512 KiB (512: the vote changes nothing),
 * GB/s: ext4 --touch free 1.72 / 2.04 / 1.92, split 1.88 / 2.00 / 1.81,
 * same 1.68 / 1.80 / 1.88; tmpfs --touch 2.04 / 1.95 / 1.73, 2.07 / 2.05
 * / 2.04, 1.33 / 1.27 / 1.38; the splicing reader (which never votes)
 * within 5% in every cell. Worst 0.84x / 0.92x / 0.85x, every one in a
 * --touch cell held to 1.3-2.1 GB/s by this EPYC's slow copy into a
 * malloc()'d buffer ("Where bytes sit within their pages"), where every
 * producer lands alike. 256 KiB has no Xeon figures: 128 KiB stays.
 */
#ifndef FIO_SPLICE_BITE
#define FIO_SPLICE_BITE ((size_t)128 << 10)
#endif

/*
 * Regular files smaller than this that the caller has just opened are read
 * with one read() into the pump's buffer (FIO_READFILE; with
 * FIO_PUMP_GATHER their bytes join the next files' in big writes); larger
 * ones are spliced or copied in the kernel. fc-v669, cat of 4000 files of
 * one size on tmpfs into a read() reader, ms, one-shot read / splice, 3
 * runs: 4 KiB 32-38/71-104, 8 KiB 37-47/70-97, 16 KiB 56-80/73-76,
 * 32 KiB 124-153/78-80, 64 KiB 295-680/96-102. Into a tmpfs file: 4 KiB
 * 27-31/34-35, 16 KiB 55-58/60-77. 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC
 * @0 (AMD EPYC, 2026-11-26), `cat f*` of 4000 files of one size on tmpfs,
 * this constant at 8 / 16 / 32 / 64 KiB, GiB/s, medians of 7 interleaved
 * runs, splicing reader then read() reader: 8 KiB files 0.70 / 0.94 /
 * 0.95 / 0.98 and 0.92 / 1.03 / 1.04 / 1.03; 16 KiB 1.36 / 1.44 / 1.40 /
 * 1.42 and 1.82 / 1.84 / 1.44 / 1.42; 32 KiB 2.72 / 2.68 / 2.73 / 1.99 and
 * 2.12 / 2.12 / 2.13 / 1.38. Worst ratio to the best value: 0.72x, 0.96x,
 * 0.78x, 0.65x: 16 KiB on both machines.
 */
#ifndef FIO_SMALL_FILE
#define FIO_SMALL_FILE ((size_t)16 << 10)
#endif

/*
 * Reading small files ahead in a second thread (ahead.c): names a batch,
 * the window of batches from the caller's in which the thread claims from
 * the far end (at most DEPTH - 1 wait), bytes of room a name in a batch
 * (files larger on average are left to the caller; DEPTH * FILES * ROOM
 * bounds the memory: 2 MiB, `cat` of 3,000 headers peaked at 3,780 KiB
 * against 1,628 without), and the fewest names worth a thread.
 * 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26),
 * 100,000 tiny files through xargs into /dev/null, hyperfine, ms
 * (BENCHMARKS.md, "Many small files"). Batch size, with both threads
 * claiming the next batch (the first design): a test program, one thread
 * 640, batches of 32 / 64 / 256 names 376 / 364 / 387; cat, batches and
 * most waiting 64/4 511, 256/4 507, 64/16 494, 32/8 478 (sigma 17-22).
 * The thread from the far end, DEPTH 4 / 8 / 16 (the caller alone, then
 * the first design; room 4 KiB a name): tmpfs 443-451 / 422-436 / 424
 * (656-704, 481), ext4 - / 454 / 475 (778, 524), the other CPU busy with
 * a loop 763 / 655 / 603 (599, 783). Worst ratio to the best: 0.79x,
 * 0.92x, 0.955x: 16. Not measured
 * on the Xeon, whose wake-ups (30-41 us) weigh more against a batch's
 * 150-300 us.
 */
#ifndef FIO_AHEAD_FILES
#define FIO_AHEAD_FILES 64
#endif
#define FIO_AHEAD_DEPTH 16
#define FIO_AHEAD_ROOM	((size_t)2 << 10)
#ifndef FIO_AHEAD_MIN
#define FIO_AHEAD_MIN (2 * FIO_AHEAD_FILES)
#endif

/*
 * The writer's thread (writer.c). fc-v669 (Xeon, `6.18.44-fc-v669 #1 SMP
 * PREEMPT_DYNAMIC @0`, 2026-11-26, null syscall 78 ns, wake-up across
 * CPUs 30 us), cat -n of 500 MB of C headers (570 MB out), one thread /
 * writer's thread, medians of 7 interleaved runs: into pipebench
 * splicing 0.331 / 0.209 s (uutils 0.12 0.576), -E 0.236 / 0.134 (uutils
 * 0.485); into pipebench --touch from ext4, -n 1.84 / 2.83 GB/s, -b 1.81
 * / 2.72 (uutils 1.00, 1.01); `| wc -l` 329 / 208 ms; into a file on
 * tmpfs 0.33-0.34 / 0.26-0.29 s, on ext4 0.30-0.44 / 0.21-0.26 (5 and 3
 * runs). Where it loses, it does not run: into /dev/null 185 / 203-223
 * ms (nothing to overlap), `| md5sum` 1.004 / 1.05-1.08 s before the
 * reader's vote stopped it (1.020 / 1.027 with the vote), pinned to one
 * CPU (split, same) 0.95x. Cat's CPU time into pipebench, 325 ms of
 * which 180 format: the write is the other half.
 *
 * It starts once FIO_WRITER_START bytes have gone out: the thread and its
 * two spare buffers faulted in cost about 0.2 ms, which a file of a few
 * MB does not win back. `cat -n | wc -c`, ms, 300 runs, started at 4 /
 * 8 MiB / never: 3.8 MB in 4.4 / 4.2 / 4.3, 4.5 MB 4.9 / 5.0 / 4.6, 7.5
 * MB 6.0 / 7.0 / 6.8, 9 MB 6.6 / 8.0 / 8.0. Worst case 4 MiB +6% (4.5
 * MB), 8 MiB +3% (7.5 MB): 8 MiB, with room for a machine where a fault
 * or a wake-up costs more.
 * 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26, wake-up
 * 6.5 us across CPUs) is such a machine: `cat -n` of the first N MB of the
 * text on tmpfs into pipebench, rate over the wall time, two passes of 51
 * interleaved runs, MB/s, started at 4 / 8 MiB / never: 3.8 MB 469-483 /
 * 501-506 / 502-515, 4.5 MB 492-498 / 539-543 / 531-543, 7.5 MB 583-602 /
 * 583-595 / 631-637, 9 MB 642-650 / 646-651 / 677-688; 31 runs, 8 MiB /
 * never: 12 MB 710 / 747, 16 MB 831 / 807, 24 MB 946 / 904, 64 MB 1,150
 * / 1,020. The thread pays from about 14 MB here, so 8 MiB costs up to
 * 0.92x (7.5 MB) and 4 MiB 0.91x; 16 MiB would cost the Xeon's 9 MB 0.83x
 * (6.6 against 8.0 ms): 8 MiB stays.
 *
 * The caller wakes the sleeping thread once FIO_WRITER_WAKE buffers wait
 * and, when all FIO_WRITER_BUFS are taken, sleeps until FIO_WRITER_LOW
 * wait: half the wake-ups of one each, each dear (tune.h's wake-up
 * figures). Buffers / wake / low, ms: into /dev/null (forced) 3/1/2 219,
 * 3/2/1 203, 4/2/2 204, 6/3/3 202; into pipebench 221, 224, 211, 207;
 * `| md5sum` (no vote) 1.064, 1.054, 1.063, 1.067 s. Flat past 3/2/1, and
 * each buffer is 256 KiB of peak RSS (cat -n into a pipe: 2,808 KiB, GNU
 * HEAD 2,048; one thread 2,016): 3/2/1.
 * 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 (AMD EPYC, 2026-11-26, wake-up
 * 5.5-7.1 us across CPUs), `make bench-sweep` WORKLOADS=fmt RUNS=7, cat -n
 * and -v of 500 MB from ext4 and tmpfs into the splicing pipebench, every
 * placement: wake at 1 / 2 worst 0.96x / 0.88x, the 0.88x one cell (-v,
 * ext4, free: 2.69 against 3.07 GiB/s) that two passes of 9 runs then put
 * level (3.69 / 3.67, 3.89 / 3.82; -n 2.87 / 2.87, 2.91 / 2.91; -E 2.85 /
 * 2.67, 2.92 / 2.94); low at 0 / 1 worst 0.90x / 0.96x. Level within the
 * spread of free placement: 3/2/1 stays.
 */
#ifndef FIO_WRITER_START
#define FIO_WRITER_START ((uint64_t)8 << 20)
#endif
#ifndef FIO_WRITER_WAKE
#define FIO_WRITER_WAKE 2u
#endif
#ifndef FIO_WRITER_LOW
#define FIO_WRITER_LOW 1u
#endif

/*
 * Pacing a pipe (pace.c): at most FIO_PACE_LOOKS sleeps before one
 * splice, each between FIO_PACE_MIN_NS (the kernel's default timer
 * slack: a shorter sleep lasts that long anyway) and FIO_PACE_MAX_NS (a
 * reader that needs longer to take half a 1 MiB pipe reads under 26 MB/s
 * and wakes us too rarely to matter). BENCHMARKS.md, "Decisions: pacing".
 */
#ifndef FIO_PACE_LOOKS
#define FIO_PACE_LOOKS 4
#endif
#define FIO_PACE_MIN_NS 50000u
#define FIO_PACE_MAX_NS 20000000u

#endif
