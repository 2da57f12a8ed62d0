//! The solver-facing layer shared by all systems. Knows nothing about games.
