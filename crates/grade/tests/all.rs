//! Every integration test of `faultline-grade` in one test binary: one build and one link
//! instead of 2.
//! Each file is still one concept; run one file's tests with
//! `cargo test --release -p faultline-grade --test grade one_judge::`.

mod one_judge;
mod report_rules;
mod sdk_presets;
