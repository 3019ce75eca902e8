//! Subnormal floats flushed to zero while the library computes.
//!
//! Soft gates multiply values in `[0, 1]` (`a*b` for AND), so a cell's soft values and the
//! gradients through many steps fall below `f32::MIN_POSITIVE` (1.2e-38) as the circuit
//! sharpens. On many x86 cores every instruction that makes or reads such a subnormal
//! takes a slow microcode path: on an Intel Xeon the checkerboard's epoch ran 3.4 times
//! and the asynchronous checkerboard's 14 times as long as with subnormals flushed (see
//! `docs/performance.md`). Flushed, a result below the smallest normal becomes zero and
//! an input below it is read as zero (the `FTZ` and `DAZ` bits of `MXCSR` on x86_64).
//!
//! Determinism needs every thread that runs our float work to flush, whichever thread it
//! lands on: [`Flushing::begin`] sets the bits on every thread of the current rayon pool,
//! where they stay (those threads are the library's compute threads; a pool's thread
//! that flushes tells that its pool was set, so a nested begin costs one read), and on
//! the calling thread, which gets its own mode back at the guard's drop when it is not a
//! pool's thread. Every library entry that computes soft values begins one (the
//! trainer's epoch and objective, the soft loss, the gate search's ranking).
//!
//! Compilers assume the default float environment when they fold constants at build time;
//! that changes nothing here (the same binary folds the same constants whatever the thread
//! count). Other architectures keep subnormals: their bits may differ from x86_64's.

/// `MXCSR`'s flush-to-zero (results) and denormals-are-zero (inputs) bits.
#[cfg(target_arch = "x86_64")]
const FLUSH_BITS: u32 = (1 << 15) | (1 << 6);

/// While alive, every thread of the current rayon pool and the calling thread flush
/// subnormals to zero; on drop a calling thread outside any pool gets its own mode back.
#[must_use = "the calling thread flushes only while the guard lives"]
pub struct Flushing {
    /// The calling thread's control word before, when it is put back at the drop.
    #[cfg(target_arch = "x86_64")]
    restore: Option<u32>,
}

impl Flushing {
    /// Sets the flush bits on the pool's threads and on this one.
    pub fn begin() -> Self {
        let in_pool = rayon::current_thread_index().is_some();
        let guard = Self {
            #[cfg(target_arch = "x86_64")]
            restore: (!in_pool).then(control_word),
        };
        if !(in_pool && flushing_here()) {
            rayon::broadcast(|_| set_flushing());
            set_flushing();
        }
        guard
    }
}

impl Drop for Flushing {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if let Some(word) = self.restore {
            set_control_word(word);
        }
    }
}

/// Whether this thread flushes subnormals now.
pub fn flushing_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    return control_word() & FLUSH_BITS == FLUSH_BITS;
    #[cfg(not(target_arch = "x86_64"))]
    false
}

fn set_flushing() {
    #[cfg(target_arch = "x86_64")]
    set_control_word(control_word() | FLUSH_BITS);
}

#[cfg(target_arch = "x86_64")]
fn control_word() -> u32 {
    let mut word = 0u32;
    // SAFETY: `stmxcsr` stores the 4-byte control word at the pointer, which points to a
    // live `u32`.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut word, options(nostack, preserves_flags));
    }
    word
}

#[cfg(target_arch = "x86_64")]
fn set_control_word(word: u32) {
    // SAFETY: `ldmxcsr` reads 4 bytes from a live `u32`; the words written here are read
    // from the register and differ only in the two flush bits, which are valid in every
    // state.
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &word, options(nostack, readonly, preserves_flags));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// A product below the smallest normal is kept by default; while a guard lives it
    /// is zero on the calling thread and on the pool's, whose threads keep flushing
    /// after it; a calling thread outside the pool gets its mode back.
    #[test]
    fn a_subnormal_product_is_zero_while_flushing() {
        let tiny = std::hint::black_box(f32::MIN_POSITIVE);
        let half = std::hint::black_box(0.5f32);
        let product = move || std::hint::black_box(tiny) * half;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let before = pool.broadcast(|_| !flushing_here() && product() > 0.0);
        assert_eq!(before, vec![true, true], "subnormals are kept by default");
        std::thread::spawn(move || {
            assert!(!flushing_here() && product() > 0.0);
            {
                let _flushing = pool.install(Flushing::begin);
                let _here = Flushing::begin();
                assert!(flushing_here() && product() == 0.0);
                let everywhere = pool.broadcast(|_| flushing_here() && product() == 0.0);
                assert_eq!(everywhere, vec![true, true]);
            }
            assert!(
                !flushing_here() && product() > 0.0,
                "the caller's mode comes back"
            );
            let kept = pool.broadcast(|_| flushing_here());
            assert_eq!(kept, vec![true, true], "the pool's threads keep flushing");
        })
        .join()
        .unwrap();
    }

    /// A subnormal input reads as zero while flushing.
    #[test]
    fn a_subnormal_input_reads_as_zero_while_flushing() {
        std::thread::spawn(|| {
            let subnormal = std::hint::black_box(f32::from_bits(1));
            assert!(subnormal + subnormal > 0.0);
            let _flushing = Flushing::begin();
            assert_eq!(std::hint::black_box(subnormal) + subnormal, 0.0);
        })
        .join()
        .unwrap();
    }
}
