//! Files: models, initial grids, target images, and writing any output whole or not at all.

pub mod atomic;
pub mod batch_file;
pub mod checkpoint_file;
pub mod folder_lock;
pub mod grid_file;
mod json;
pub mod model_file;
pub mod pattern_image;
pub mod recording_file;
pub mod run_folder;
