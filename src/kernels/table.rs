//! Tables of rows aligned to a cache line.
//!
//! A tile's row is 256 bytes (64 f32 lanes) in the soft kernels and 64 bytes (512 bits)
//! in the hard ones, so with a table that starts on a 64-byte boundary every vector
//! load and store of a row touches exactly one cache line. A plain `Vec` starts wherever
//! the allocator puts it (16 bytes past a page for large ones), which makes every
//! 512-bit access straddle two lines: the soft forward ran ~28% slower that way.

use aligned_vec::{AVec, ConstAlign};

/// Bytes of a cache line, and the alignment of every table.
pub const LINE: usize = 64;

/// A growable table that starts on a cache line.
pub type Table<T> = AVec<T, ConstAlign<LINE>>;

/// A table of `len` copies of `value`.
pub fn table<T: Clone>(value: T, len: usize) -> Table<T> {
    let mut t = Table::new(LINE);
    t.resize(len, value);
    t
}

/// Takes the table out of `t`, leaving an empty one (which holds no memory), as
/// `std::mem::take` does for a `Vec`.
pub fn take<T>(t: &mut Table<T>) -> Table<T> {
    std::mem::replace(t, Table::new(LINE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_start_on_a_cache_line_also_after_growing() {
        let mut t = table(0.0f32, 3);
        assert_eq!(t.as_ptr().align_offset(LINE), 0);
        t.resize(100_000, 1.0);
        assert_eq!(t.as_ptr().align_offset(LINE), 0);
        assert_eq!((t[2], t[99_999], t.len()), (0.0, 1.0, 100_000));
    }
}
