//! `weft run` as one process ("rank") of an `mpirun` job: joining the job,
//! and leaving it.
//!
//! Built with the `mpi` feature, a `weft run` that finds itself launched by
//! an MPI launcher joins `MPI_COMM_WORLD` (`MpiTransport`); with more than
//! one rank, each runs its block of the grid's devices and rank 0 reports.
//! Without the feature, a launch with several ranks is refused: each
//! process would run the whole grid on its own and print it again.

use std::sync::Arc;

use weft_runtime::devices::remote::Cluster;

/// The world size an MPI launcher gives this process, if one launched it
/// (Open MPI, MPICH's Hydra, or PMIx).
fn launched_ranks() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.trim().parse().ok())
        .or_else(|| std::env::var_os("PMIX_RANK").map(|_| 1))
}

/// The ranks of the job this process belongs to: `None` when it runs alone
/// (not launched by MPI, or a job of one).
#[cfg(feature = "mpi")]
pub fn join() -> Result<Option<Arc<Cluster>>, String> {
    use weft_runtime::devices::transport::Transport;
    use weft_runtime::devices::transport::mpi::MpiTransport;
    if launched_ranks().is_none() {
        return Ok(None);
    }
    let transport = MpiTransport::start().map_err(|e| format!("error: MPI: {e}"))?;
    if transport.ranks() <= 1 {
        transport
            .shut_down()
            .map_err(|e| format!("error: MPI: {e}"))?;
        return Ok(None);
    }
    Ok(Some(Cluster::new(Arc::new(transport))))
}

/// The ranks of the job this process belongs to: always `None` without the
/// `mpi` feature, and an error when a launcher started several.
#[cfg(not(feature = "mpi"))]
pub fn join() -> Result<Option<Arc<Cluster>>, String> {
    match launched_ranks() {
        Some(ranks) if ranks > 1 => Err(format!(
            "error: launched as one of {ranks} MPI ranks, but this weft was built without MPI (build it with `--features mpi`)"
        )),
        _ => Ok(None),
    }
}
