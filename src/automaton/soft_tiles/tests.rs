use super::*;
use crate::automaton::geometry::{Geometry, NO_LANE};
use crate::automaton::masks::FireMasks;
use crate::automaton::patch_shifts::PatchShifts;
use crate::kernels::simd::SimdLevel;
use crate::model::config::PATCH;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Geometries with one tile per grid, several, a tile shared by grids, padding lanes
/// and periodic wrapping (20x20: grid rows that start mid-tile, as the lizard's).
const CASES: [(usize, usize, usize, bool); 7] = [
    (1, 20, 20, true),
    (2, 16, 16, false),
    (1, 16, 16, true),
    (3, 10, 10, false),
    (2, 5, 7, true),
    (1, 3, 3, true),
    (2, 8, 8, false),
];

fn random(len: usize, rng: &mut ChaCha8Rng) -> Vec<f32> {
    (0..len).map(|_| rng.random_range(-1.0..1.0)).collect()
}

/// Each case at each instruction set this CPU has.
fn cases_at_every_level() -> impl Iterator<Item = ((usize, usize, usize, bool), SimdLevel)> {
    CASES
        .into_iter()
        .flat_map(|case| SimdLevel::available().map(move |level| (case, level)))
}

/// The runs of a geometry, each as (first tile, tiles).
fn runs(g: &Geometry) -> Vec<(usize, usize)> {
    g.tile_runs().iter().map(|r| (r.start, r.len())).collect()
}

/// Every gathered value is the one the neighbour table names, bit for bit, at every
/// instruction set.
#[test]
fn the_gathered_patch_is_what_the_neighbour_table_names() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let channels = 3;
    for ((batch, h, w, periodic), level) in cases_at_every_level() {
        let g = Geometry::new(batch, h, w, periodic, TILE);
        let shifts = PatchShifts::new(&g);
        let state = random(g.tiles() * channels * TILE, &mut rng);
        for (first, tiles) in runs(&g) {
            let window = &state[first * channels * TILE..][..tiles * channels * TILE];
            for tile in first..first + tiles {
                let mut acts = vec![f32::NAN; channels * PATCH * TILE];
                gather_patch_at(level, &shifts, channels, (tile, first), window, &mut acts);
                for c in 0..channels {
                    for p in 0..PATCH {
                        for i in 0..TILE {
                            let n = g.neighbors[tile * TILE + i][p];
                            let expected = match n {
                                NO_LANE => 0.0,
                                n => state[state_index(channels, c, n as usize)],
                            };
                            let got = acts[(c * PATCH + p) * TILE + i];
                            assert_eq!(
                                got.to_bits(),
                                expected.to_bits(),
                                "{level}: {batch}x{h}x{w} tile {tile} c{c} p{p} lane {i}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Every lane's gradient is what its readers' patches received, added in patch order
/// after what a cell that did not fire keeps, bit for bit, at every instruction set.
#[test]
fn the_scattered_gradient_sums_what_the_reader_table_names_in_patch_order() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let channels = 3;
    for ((batch, h, w, periodic), level) in cases_at_every_level() {
        let g = Geometry::new(batch, h, w, periodic, TILE);
        let shifts = PatchShifts::new(&g);
        let patch_len = channels * PATCH * TILE;
        let tile_len = channels * TILE;
        let patch = random(g.tiles() * patch_len, &mut rng);
        let next = random(g.tiles() * tile_len, &mut rng);
        let fire = FireMasks::draw(2, batch, h * w, 0.6, &mut rng);
        for masks in [None, Some(&fire)] {
            for (first, tiles) in runs(&g) {
                let mut out = vec![f32::NAN; tiles * tile_len];
                let grads = (
                    &patch[first * patch_len..][..tiles * patch_len],
                    &next[first * tile_len..][..tiles * tile_len],
                );
                scatter_patch_grads_at(
                    level,
                    &shifts,
                    channels,
                    (1, first),
                    masks,
                    grads,
                    &mut out,
                );
                for lane in first * TILE..(first + tiles) * TILE {
                    let kept = masks.is_some_and(|m| !m.fires(1, lane));
                    for c in 0..channels {
                        let at = state_index(channels, c, lane);
                        let mut expected = if kept { next[at] } else { 0.0 };
                        for (p, &r) in g.readers[lane].iter().enumerate() {
                            if r != NO_LANE {
                                let r = r as usize;
                                expected += patch
                                    [(r / TILE) * patch_len + (c * PATCH + p) * TILE + r % TILE];
                            }
                        }
                        let got = out[at - first * tile_len];
                        assert_eq!(
                            got.to_bits(),
                            expected.to_bits(),
                            "{level}: {batch}x{h}x{w} lane {lane} c{c}"
                        );
                    }
                }
            }
        }
    }
}

/// The firing lanes are the real lanes whose cell fires, in lane order, for shared and
/// per-grid masks and for any window of tiles (padding lanes, which always fire, are not
/// among them).
#[test]
fn the_firing_lanes_are_the_real_lanes_that_fire() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for (batch, h, w, periodic) in CASES {
        let g = Geometry::new(batch, h, w, periodic, TILE);
        let cells = h * w;
        let shared = FireMasks::draw(2, batch, cells, 0.6, &mut rng);
        let per_grid = FireMasks::draw_per_grid(2, batch, cells, 0.6, &mut rng);
        for masks in [&shared, &per_grid] {
            for (first, tiles) in [(0, g.tiles()), (g.tiles() - 1, 1)] {
                let got = firing_lanes(&g, masks, 1, first..first + tiles);
                let expected: Vec<u32> = (first * TILE..(first + tiles) * TILE)
                    .filter(|&lane| lane < batch * cells && masks.fires(1, lane))
                    .map(|lane| lane as u32)
                    .collect();
                assert_eq!(got, expected, "{batch}x{h}x{w}, tiles {first}..");
            }
        }
    }
}
