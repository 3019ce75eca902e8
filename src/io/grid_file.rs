//! Initial grids from JSON: a nested array `[batch][row][col][channel]` of numbers in [0, 1].

use std::path::Path;

use crate::automaton::grid::Grids;
use crate::error::GridFileError;

/// Reads grids and checks that they are rectangular, in [0, 1], with `channels` channels.
pub fn load(path: &Path, channels: usize) -> Result<Grids, GridFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| GridFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    from_json(&text, channels).map_err(|(json_path, message)| GridFileError::Invalid {
        file: path.to_path_buf(),
        json_path,
        message,
    })
}

pub fn from_json(text: &str, channels: usize) -> Result<Grids, (String, String)> {
    let nested: Vec<Vec<Vec<Vec<f64>>>> = crate::io::json::parse(text)?;
    let err = |path: String, message: String| Err((path, message));
    let batch = nested.len();
    let height = nested.first().map_or(0, Vec::len);
    let width = nested.first().and_then(|g| g.first()).map_or(0, Vec::len);
    if batch == 0 || height == 0 || width == 0 {
        return err("(top level)".into(), "the grids must not be empty".into());
    }
    let mut grids = Grids::zeros(batch, height, width, channels);
    for (b, grid) in nested.iter().enumerate() {
        if grid.len() != height {
            return err(
                format!("[{b}]"),
                format!("expected {height} rows like grid 0, found {}", grid.len()),
            );
        }
        for (r, row) in grid.iter().enumerate() {
            if row.len() != width {
                return err(
                    format!("[{b}][{r}]"),
                    format!("expected {width} columns, found {}", row.len()),
                );
            }
            for (c, cell) in row.iter().enumerate() {
                if cell.len() != channels {
                    return err(
                        format!("[{b}][{r}][{c}]"),
                        format!(
                            "the model has {channels} channels, this cell has {}",
                            cell.len()
                        ),
                    );
                }
                for (ch, &v) in cell.iter().enumerate() {
                    if !(0.0..=1.0).contains(&v) {
                        return err(
                            format!("[{b}][{r}][{c}][{ch}]"),
                            format!("{v} is not in [0, 1]"),
                        );
                    }
                    grids.set(b, r, c, ch, v as f32);
                }
            }
        }
    }
    Ok(grids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_small_grid() {
        let g = from_json("[[[[0,1],[1,0]],[[0.5,0],[1,1]]]]", 2).unwrap();
        assert_eq!((g.batch, g.height, g.width, g.channels), (1, 2, 2, 2));
        assert_eq!(g.get(0, 1, 0, 0), 0.5);
        assert_eq!(g.get(0, 0, 1, 0), 1.0);
    }

    #[test]
    fn names_the_bad_cell() {
        assert_eq!(from_json("[[[[0,1],[1]]]]", 2).unwrap_err().0, "[0][0][1]");
        assert_eq!(from_json("[[[[0,2]]]]", 2).unwrap_err().0, "[0][0][0][1]");
        assert_eq!(from_json("[[[[0]],[[0],[1]]]]", 1).unwrap_err().0, "[0][1]");
        assert!(from_json("[]", 1).is_err());
        assert!(from_json("{\"a\": 1}", 1).is_err());
    }
}
