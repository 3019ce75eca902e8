//! Work that runs on its own thread while Python waits for it: a training run or a sweep.
//! The waiting thread polls for progress with the GIL released, so the interpreter stays
//! free to draw a progress bar and to raise `KeyboardInterrupt`; asking the job to stop
//! ends it after the epoch it is in.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{bad_value, internal};
use crate::sweep::SweepDone;
use crate::train::TrainDone;

/// What a job reports while it runs.
pub enum Event {
    /// A training epoch: attempt, epoch, the attempt's epochs, soft loss, hard loss,
    /// accuracy.
    Epoch(usize, usize, usize, f64, f64, f64),
    /// A sweep's run ended: its setting's index, its seed, whether it is exact, its
    /// seconds.
    Run(usize, u64, bool, f64),
}

/// What a job made.
pub enum Done {
    Train(Box<TrainDone>),
    Sweep(SweepDone),
}

/// The side of a job that runs: it reports events and is told when to stop.
#[derive(Clone)]
pub struct Reporter {
    events: Sender<Event>,
    stop: Arc<AtomicBool>,
}

impl Reporter {
    /// Sends `event`; returns whether the job was asked to stop.
    pub fn report(&self, event: Event) -> bool {
        // The receiver is gone only when the Python side was dropped; the job ends anyway.
        let _ = self.events.send(event);
        self.stop.load(Ordering::Relaxed)
    }

    pub fn asked_to_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// A running job, as Python holds it.
#[pyclass(module = "logicars._native")]
pub struct Job {
    events: Mutex<Receiver<Event>>,
    stop: Arc<AtomicBool>,
    worker: Mutex<Option<JoinHandle<Result<Done, String>>>>,
}

impl Job {
    /// Starts `work` on its own thread, in a pool of `threads` worker threads.
    pub fn spawn(
        pool: rayon::ThreadPool,
        work: impl FnOnce(Reporter) -> Result<Done, String> + Send + 'static,
    ) -> PyResult<Self> {
        let (events, receiver) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let reporter = Reporter {
            events,
            stop: Arc::clone(&stop),
        };
        let worker = std::thread::Builder::new()
            .name("logicars-job".into())
            .spawn(move || pool.install(|| work(reporter)))
            .map_err(|e| internal("starting the job's thread", e))?;
        Ok(Job {
            events: Mutex::new(receiver),
            stop,
            worker: Mutex::new(Some(worker)),
        })
    }
}

/// The number of worker threads: all cores by default; more than 8 per core only adds
/// scheduling.
pub fn thread_pool(threads: Option<usize>) -> PyResult<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if n == 0 || n > 8 * cores {
            return Err(bad_value(format!(
                "threads must be 1 to {} (8 per core; this machine has {cores}), got {n}",
                8 * cores
            )));
        }
        builder = builder.num_threads(n);
    }
    builder
        .build()
        .map_err(|e| internal("starting the thread pool", e))
}

fn event_tuple<'py>(py: Python<'py>, event: Event) -> PyResult<Bound<'py, PyTuple>> {
    match event {
        Event::Epoch(a, e, n, soft, hard, acc) => (a, e, n, soft, hard, acc).into_pyobject(py),
        Event::Run(setting, seed, exact, wall_s) => {
            (setting, seed, exact, wall_s).into_pyobject(py)
        }
    }
}

#[pymethods]
impl Job {
    /// Waits up to `timeout` seconds for events, without the GIL; returns those that
    /// came and whether the job is over (every event then taken).
    fn poll<'py>(
        &self,
        py: Python<'py>,
        timeout: f64,
    ) -> PyResult<(Vec<Bound<'py, PyTuple>>, bool)> {
        let wait = Duration::try_from_secs_f64(timeout.max(0.0)).map_err(bad_value)?;
        let (events, over) = py.detach(|| {
            let receiver = self.events.lock().unwrap_or_else(|e| e.into_inner());
            match receiver.recv_timeout(wait) {
                Ok(first) => {
                    let mut events = vec![first];
                    events.extend(receiver.try_iter());
                    (events, false)
                }
                Err(RecvTimeoutError::Timeout) => (Vec::new(), false),
                Err(RecvTimeoutError::Disconnected) => (Vec::new(), true),
            }
        });
        let events = events
            .into_iter()
            .map(|e| event_tuple(py, e))
            .collect::<PyResult<_>>()?;
        Ok((events, over))
    }

    /// Asks the job to stop after the epoch it is in.
    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Waits for the job to end (without the GIL) and returns what it made, as a dict.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let worker = self
            .worker
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| internal("finishing the job", "it was already finished"))?;
        let joined = py.detach(|| worker.join());
        let done = match joined {
            Ok(Ok(done)) => done,
            Ok(Err(message)) => return Err(bad_value(message)),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(internal("the job failed", what));
            }
        };
        match done {
            Done::Train(done) => done.into_py(py),
            Done::Sweep(done) => done.into_py(py),
        }
    }
}
