//! Bounds of [ADFJT] (Asi, Duchi, Fallah, Javidi, Talwar — Private Adaptive Gradient Methods for
//! Convex Optimization). Under construction.
