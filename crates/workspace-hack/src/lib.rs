//! No code: this crate exists for its `Cargo.toml`, which unifies the features of the crates
//! the release build and the test build share, so that `cargo test --workspace --release`
//! after `cargo run --release` reuses what the first one built (see the manifest's comment).
