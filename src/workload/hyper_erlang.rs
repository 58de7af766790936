//! Hyper-Erlang workloads of common order (SOB §3.1): placeholder until the module lands.
