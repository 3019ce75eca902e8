//! The cellular automaton: grids, their geometry, and rollouts of many steps (soft for
//! training, hard on bits for evaluation; [`hard_run`] makes a model's hard rollout).

pub mod frames;
pub mod geometry;
pub mod grid;
pub mod hard;
pub mod hard_run;
pub mod masks;
pub mod patch_shifts;
pub mod soft;
mod soft_tiles;
