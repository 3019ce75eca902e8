//! Training batches given as a file, to replay a run of another implementation: the
//! initial grids of every epoch, `[epoch][batch][row][col][channel]`, one bit per value,
//! packed eight to a byte with the first value in the most significant bit (the layout
//! of numpy's `packbits`).

use std::path::Path;

use crate::automaton::grid::Grids;
use crate::error::BatchFileError;

/// Reads every batch of `grids` grids of `height x width x channels` bits in the file.
pub fn load(
    path: &Path,
    grids: usize,
    (height, width, channels): (usize, usize, usize),
) -> Result<Vec<Grids>, BatchFileError> {
    let bytes = std::fs::read(path).map_err(|source| BatchFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let bits = grids * height * width * channels;
    let size_error = || BatchFileError::Size {
        path: path.to_path_buf(),
        bytes: bytes.len(),
        per_batch: bits.div_ceil(8),
        grids,
        height,
        width,
        channels,
    };
    // A batch must fill whole bytes, or batches would not start on a byte.
    if bits == 0 || !bits.is_multiple_of(8) || bytes.is_empty() || bytes.len() % (bits / 8) != 0 {
        return Err(size_error());
    }
    Ok(bytes
        .chunks_exact(bits / 8)
        .map(|chunk| {
            let mut batch = Grids::zeros(grids, height, width, channels);
            for (i, v) in batch.values.iter_mut().enumerate() {
                *v = f32::from((chunk[i / 8] >> (7 - i % 8)) & 1);
            }
            batch
        })
        .collect())
}

/// Packs batches in the layout [`load`] reads.
pub fn pack(batches: &[Grids]) -> Vec<u8> {
    let values = batches.iter().flat_map(|b| &b.values);
    let mut out = Vec::new();
    for (i, &v) in values.enumerate() {
        if i % 8 == 0 {
            out.push(0u8);
        }
        if v >= 0.5 {
            *out.last_mut().expect("pushed above") |= 0x80 >> (i % 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_value_is_the_most_significant_bit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.bits");
        // Two epochs of one 1x2 grid with 4 channels: 8 bits each.
        std::fs::write(&path, [0b1000_0001, 0b0110_0000]).unwrap();
        let batches = load(&path, 1, (1, 2, 4)).unwrap();
        assert_eq!(batches.len(), 2);
        assert_eq!(batches[0].values, [1., 0., 0., 0., 0., 0., 0., 1.]);
        assert_eq!(batches[1].values, [0., 1., 1., 0., 0., 0., 0., 0.]);
        assert_eq!(pack(&batches), [0b1000_0001, 0b0110_0000]);
    }

    #[test]
    fn a_partial_batch_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.bits");
        std::fs::write(&path, [0u8; 3]).unwrap();
        let err = load(&path, 1, (2, 2, 4)).unwrap_err().to_string();
        assert!(
            err.contains("not a whole number of batches of 2 bytes"),
            "{err}"
        );
    }
}
