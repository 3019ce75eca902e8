//! A rollout's steps as phases of tile tasks, shared by the pool's threads with one fork
//! for them all.
//!
//! A grid that is one run of tiles (one grid per batch: the lizard, the coloured G, the
//! asynchronous checkerboard) cannot step its tiles on their own: each step reads the
//! neighbours' new states. With a fork-join per step, the thread left without work went
//! to sleep between steps of tens of microseconds and had to be woken for the next; here
//! each thread takes the next free task and waits for the phase's last by spinning. A
//! task may do an early part before that wait (backward recomputes its tile's
//! activations there), and a phase may have shared jobs that run between the wait and
//! its tasks (backward's scatter).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `task(phase, tile)` for each of `tiles` tiles of each of `phases` phases, on the
/// current pool's threads: a thread takes the next task not yet taken, and no task of a
/// phase starts before every task of the phases before it is done. The caller takes
/// part, so the phases complete even when no other thread is free to join.
///
/// `task` must not wait on other rayon work: the threads that wait for it spin.
pub(super) fn run_phases(phases: usize, tiles: usize, task: impl Fn(usize, usize) + Sync) {
    let tasks = |phase, tile, ()| task(phase, tile);
    run_phases_early(phases, tiles, |_, _| (), (0, |_, _| ()), tasks);
}

/// [`run_phases`] with a head start and shared jobs. A thread that takes a task runs
/// `early(phase, tile)` at once, before the phases before are done; then, once they
/// are, it helps run the phase's `jobs` shared jobs (`job(phase, j)` for each `j` below
/// `jobs`, each run once, by whichever thread takes it); then, once every one of them is
/// done, it runs `task(phase, tile, early's result)`.
///
/// A thread left without work at the end of a phase thus starts the next one's early
/// part instead of waiting. `early` must touch nothing that an earlier phase's `task` or
/// `job` writes; a phase's jobs run before any of its tasks' `task`.
pub(super) fn run_phases_early<E>(
    phases: usize,
    tiles: usize,
    early: impl Fn(usize, usize) -> E + Sync,
    (jobs, job): (usize, impl Fn(usize, usize) + Sync),
    task: impl Fn(usize, usize, E) + Sync,
) {
    let total = phases * tiles;
    let (taken, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // Jobs are numbered on from phase to phase, like the tasks: phase p's are
    // p * jobs.. (p + 1) * jobs, taken only up to their phase's end.
    let (jobs_taken, jobs_done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    // Tasks are taken in order and each waits for the phases before its own, so when
    // the tasks done number the earlier phases' tasks, those are the ones done.
    let work = || loop {
        let k = taken.fetch_add(1, Ordering::Relaxed);
        if k >= total {
            break;
        }
        let (phase, tile) = (k / tiles, k % tiles);
        let head = early(phase, tile);
        wait_until(|| done.load(Ordering::Acquire) >= phase * tiles);
        let end = (phase + 1) * jobs;
        let next = |j: usize| (j < end).then_some(j + 1);
        while let Ok(j) = jobs_taken.fetch_update(Ordering::Relaxed, Ordering::Relaxed, next) {
            job(phase, j - phase * jobs);
            jobs_done.fetch_add(1, Ordering::Release);
        }
        wait_until(|| jobs_done.load(Ordering::Acquire) >= end);
        task(phase, tile, head);
        done.fetch_add(1, Ordering::Release);
    };
    let helpers = rayon::current_num_threads().min(tiles).saturating_sub(1);
    rayon::scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| work());
        }
        work();
    });
}

/// Spins until `ready()`, yielding the core now and then: a phase's wait is a few
/// microseconds, shorter than a sleep and a wake-up.
fn wait_until(ready: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        spins += 1;
        if spins.is_multiple_of(64) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// A buffer that the tasks and jobs of [`run_phases_early`] read and write by parts:
/// which part each reads or writes is its phase's business (no two of them write one part
/// at once, and none reads a part while another writes it).
pub(super) struct PhaseBuffer<'a, T> {
    ptr: *mut T,
    len: usize,
    _buffer: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: the buffer is only reached through `part` and `part_mut`, whose callers
// promise that no part is written while another task reads or writes it.
unsafe impl<T: Send> Sync for PhaseBuffer<'_, T> {}

impl<'a, T> PhaseBuffer<'a, T> {
    pub(super) fn new(buffer: &'a mut [T]) -> Self {
        PhaseBuffer {
            ptr: buffer.as_mut_ptr(),
            len: buffer.len(),
            _buffer: std::marker::PhantomData,
        }
    }

    /// The buffer's length.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Elements `start..start + len`, to read.
    ///
    /// # Safety
    /// No task writes any of them while the returned slice lives.
    pub(super) unsafe fn part(&self, start: usize, len: usize) -> &[T] {
        assert!(start + len <= self.len, "a part inside the buffer");
        // SAFETY: in bounds (checked); the caller's promise rules out writers.
        unsafe { std::slice::from_raw_parts(self.ptr.add(start), len) }
    }

    /// Elements `start..start + len`, to write.
    ///
    /// # Safety
    /// No other task reads or writes any of them while the returned slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn part_mut(&self, start: usize, len: usize) -> &mut [T] {
        assert!(start + len <= self.len, "a part inside the buffer");
        // SAFETY: in bounds (checked); the caller's promise makes this the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every task runs once, and when it starts, every task of the phases before it is
    /// done: on one thread, on two, and on more threads than tiles.
    #[test]
    fn each_phase_starts_after_the_one_before_ends() {
        let (phases, tiles) = (40, 5);
        for threads in [1, 2, 7] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let runs: Vec<AtomicUsize> = (0..phases * tiles).map(|_| AtomicUsize::new(0)).collect();
            let late = AtomicUsize::new(0);
            pool.install(|| {
                run_phases(phases, tiles, |phase, tile| {
                    let before =
                        (0..phase * tiles).filter(|&k| runs[k].load(Ordering::Acquire) == 0);
                    late.fetch_add(before.count(), Ordering::Relaxed);
                    // Long enough for the other threads to take tasks meanwhile.
                    std::hint::black_box((0..2000).sum::<u64>());
                    runs[phase * tiles + tile].fetch_add(1, Ordering::Release);
                });
            });
            assert_eq!(late.load(Ordering::Relaxed), 0, "{threads} threads");
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "{threads} threads"
            );
        }
    }

    /// With a head start and shared jobs: each early part, job and task runs once; a job
    /// starts only when the phases before are done, and a task only when its phase's
    /// jobs are too; each task gets its own early part's result.
    #[test]
    fn jobs_run_between_the_phases_and_tasks_get_their_head_start() {
        let (phases, tiles, jobs) = (30, 5, 3);
        for threads in [1, 2, 7] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let count =
                |n: usize| -> Vec<AtomicUsize> { (0..n).map(|_| AtomicUsize::new(0)).collect() };
            let (heads, job_runs, runs) = (
                count(phases * tiles),
                count(phases * jobs),
                count(phases * tiles),
            );
            let late = AtomicUsize::new(0);
            let not_done = |counts: &[AtomicUsize], range: std::ops::Range<usize>| {
                range
                    .filter(|&k| counts[k].load(Ordering::Acquire) == 0)
                    .count()
            };
            pool.install(|| {
                let early = |phase: usize, tile: usize| {
                    heads[phase * tiles + tile].fetch_add(1, Ordering::Release);
                    phase * tiles + tile
                };
                let job = |phase: usize, j: usize| {
                    late.fetch_add(not_done(&runs, 0..phase * tiles), Ordering::Relaxed);
                    std::hint::black_box((0..20_000).sum::<u64>());
                    job_runs[phase * jobs + j].fetch_add(1, Ordering::Release);
                };
                run_phases_early(phases, tiles, early, (jobs, job), |phase, tile, head| {
                    assert_eq!(head, phase * tiles + tile, "the task's own head start");
                    let waited = not_done(&runs, 0..phase * tiles)
                        + not_done(&job_runs, phase * jobs..(phase + 1) * jobs);
                    late.fetch_add(waited, Ordering::Relaxed);
                    std::hint::black_box((0..2000).sum::<u64>());
                    runs[phase * tiles + tile].fetch_add(1, Ordering::Release);
                });
            });
            assert_eq!(late.load(Ordering::Relaxed), 0, "{threads} threads");
            for counts in [&heads, &job_runs, &runs] {
                let once = counts.iter().all(|r| r.load(Ordering::Relaxed) == 1);
                assert!(once, "{threads} threads");
            }
        }
    }
}
