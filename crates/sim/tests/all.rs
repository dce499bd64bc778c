//! Every integration test of `faultline-sim` in one test binary: one build and one link
//! instead of 12.
//! Each file is still one concept; run one file's tests with
//! `cargo test --release -p faultline-sim --test sim cursor_reuse_numbering::`.

mod common;

mod client_habits;
mod cursor_reuse_numbering;
mod era_switch;
mod finding_labels;
mod fleet_resume;
mod guards;
mod interleaved_resume;
mod lazy_log_expiry;
mod loop_shrinks;
mod misread_witnesses;
mod misrouted_oracle;
mod modern_client;
mod orphaned_stream;
mod properties;
mod proxy_faults;
mod rolling_deploy;
mod server_answers;
mod unmet_faults;
mod wire_ids;
