//! The flags that describe the interconnect a run or a simulation charges
//! transfers on: the flat link's bandwidth and latency, or a topology and
//! the algorithm of every collective on it. `weft run` and `weft simulate`
//! take the same ones, so a simulation prices what a run would.

use crate::run::LinkMode;

#[derive(clap::Args)]
pub struct InterconnectArgs {
    /// Interconnect bandwidth per device for the link model, in GB/s.
    #[arg(long, value_name = "GB/S", default_value_t = 25.0, allow_negative_numbers = true, value_parser = crate::flags::link_bandwidth)]
    pub link_bandwidth: f64,
    /// Per-transfer latency of the link model, in microseconds.
    #[arg(long, value_name = "US", default_value_t = 5.0, allow_negative_numbers = true, value_parser = crate::flags::link_latency)]
    pub link_latency: f64,
    /// `unpaced` turns the link model off (transfers take no modelled time).
    #[arg(long, value_name = "MODE")]
    pub link: Option<LinkMode>,
    /// Price every collective by its algorithm on this interconnect instead
    /// of the flat link: `flat`, `nodes:8:intra=450GB/s,3us:inter=50GB/s,10us`,
    /// `ring:8`, `torus:4x4x4:link=50GB/s,2us`, `mesh:2x4`, or `profile` (the
    /// `[interconnect]` of --profile's device). A link left out is
    /// --link-bandwidth and --link-latency's (docs/runtime.md).
    #[arg(long, value_name = "SPEC", conflicts_with = "link")]
    pub topology: Option<String>,
    /// The algorithm of every collective under --topology: `ring` (the
    /// default), `tree`, `direct` (the ring where one does not apply), or
    /// `best`, the fastest for each collective.
    #[arg(
        long,
        value_name = "ALGORITHM",
        default_value = "ring",
        requires = "topology"
    )]
    pub collective_algorithm: weft_cost::Selection,
}
