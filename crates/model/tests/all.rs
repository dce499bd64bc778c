//! Every integration test of `faultline-model` in one test binary: one build and one link
//! instead of 29.
//! Each file is still one concept; run one file's tests with
//! `cargo test --release -p faultline-model --test model era_classification::`.

mod fleet_common;
mod modern_common;

mod era_classification;
mod extreme_times;
mod fleet_event_store;
mod fleet_replicas;
mod fleet_scale;
mod fleet_sessions;
mod knobs;
mod lazy_log_expiry;
mod ledger_bounds;
mod ledger_truth;
mod ledger_window;
mod legacy_list_changed;
mod limits;
mod listen_keepalive;
mod modern_cancel_on_close;
mod modern_errors;
mod modern_fixtures;
mod modern_handle_bounds;
mod modern_handles;
mod modern_input_required;
mod modern_ledger_bounds;
mod modern_listen;
mod modern_request_stream;
mod modern_task_bounds;
mod modern_task_fixtures;
mod modern_tasks;
mod profile_knobs;
mod replica_era;
mod restart_ends_streams;
mod server_answers;
mod stateless_legacy;
