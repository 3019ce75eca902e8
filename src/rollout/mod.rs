//! Rollouts of the automaton: many steps of every cell, soft (for training) or hard.

pub mod frames;
pub mod hard;
pub mod masks;
pub mod soft;
