//! The rule of the Game of Life, the target of the `gol` task.

use crate::automaton::grid::Grids;

/// One Game of Life generation of channel 0 (values >= 0.5 are alive).
pub fn life_generation(grids: &Grids, periodic: bool) -> Grids {
    let (h, w) = (grids.height as isize, grids.width as isize);
    let mut next = grids.clone();
    let alive = |b: usize, r: isize, c: isize| -> u32 {
        let (r, c) = if periodic {
            (r.rem_euclid(h), c.rem_euclid(w))
        } else if r < 0 || c < 0 || r >= h || c >= w {
            return 0;
        } else {
            (r, c)
        };
        (grids.get(b, r as usize, c as usize, 0) >= 0.5) as u32
    };
    for b in 0..grids.batch {
        for r in 0..h {
            for c in 0..w {
                let mut n = 0;
                for dr in -1..=1 {
                    for dc in -1..=1 {
                        if dr != 0 || dc != 0 {
                            n += alive(b, r + dr, c + dc);
                        }
                    }
                }
                let live = alive(b, r, c) == 1;
                let next_live = n == 3 || (live && n == 2);
                next.set(b, r as usize, c as usize, 0, next_live as u32 as f32);
            }
        }
    }
    next
}
