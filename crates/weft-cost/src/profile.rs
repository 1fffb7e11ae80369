//! Device profiles: how fast a modelled device does each kind of
//! [`Work`], kept in a small TOML file.
//!
//! The time of an amount of work is a roofline:
//!
//! ```text
//! time = launches · launch_overhead
//!      + max( Σ matrix[c] / matrix_rate[c] + Σ vector[c] / vector_rate[c]
//!               + transcendentals / transcendental_rate,
//!             bytes / memory_bandwidth )
//! ```
//!
//! computing and moving memory overlap, and the slower of the two bounds
//! the kernel. A profile with a `[cache]` streams the bytes of an
//! instruction whose bytes fit in the cache at the cache's bandwidth
//! instead ([`CacheSection`]): on a CPU an elementwise kernel over a layer's
//! activations runs two to three times faster than one over a weight
//! matrix that has to come from memory. Rates are per second; the file writes them in G/s (and the
//! overhead in µs) so the numbers read as a datasheet does:
//!
//! ```toml
//! name = "cpu-local"
//! description = "measured by weft calibrate"
//! launch_overhead_us = 1.2
//! memory_bandwidth_gb_per_s = 9.5
//! data_movement_gb_per_s = 1.5
//! transcendentals_g_per_s = 0.12
//!
//! [matrix_gflop_per_s]
//! f64 = 6.0
//! f32 = 14.0
//! f16 = 1.1
//! integer = 1.4
//!
//! [vector_gop_per_s]
//! f64 = 0.9
//! f32 = 1.0
//! f16 = 0.25
//! integer = 1.1
//! ```
//!
//! Where profiles come from ([`Profile::resolve`]): a path to such a file;
//! the name of a built-in profile ([`BUILT_IN`]); or `cpu-local`, the
//! profile `weft calibrate` measured on this machine and cached in
//! [`cache_directory`]. Without a choice, `cpu-local` when it is cached,
//! else the built-in `cpu-reference`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::link::Link;
use crate::topology::Topology;
use crate::work::{NumberClass, Work};

/// Rates per [`NumberClass`], in G/s as the file writes them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRates {
    /// 64-bit floats.
    pub f64: f64,
    /// 32-bit floats.
    pub f32: f64,
    /// 16-bit and narrower floats.
    pub f16: f64,
    /// Integers and `pred`.
    pub integer: f64,
}

impl ClassRates {
    /// The rate of `class`, in G/s.
    pub fn of(&self, class: NumberClass) -> f64 {
        match class {
            NumberClass::F64 => self.f64,
            NumberClass::F32 => self.f32,
            NumberClass::F16 => self.f16,
            NumberClass::Integer => self.integer,
        }
    }

    /// Sets the rate of `class`.
    pub fn set(&mut self, class: NumberClass, rate: f64) {
        match class {
            NumberClass::F64 => self.f64 = rate,
            NumberClass::F32 => self.f32 = rate,
            NumberClass::F16 => self.f16 = rate,
            NumberClass::Integer => self.integer = rate,
        }
    }
}

/// The most of a device's memory bandwidth a transfer is taken to use: a
/// device's own kernels always get some.
pub const MOST_MEMORY_SHARED: f64 = 0.9;

/// A modelled device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// What to call it.
    pub name: String,
    /// Where its numbers come from.
    #[serde(default)]
    pub description: String,
    /// Fixed cost of every instruction that does work, in microseconds.
    pub launch_overhead_us: f64,
    /// Memory bandwidth, in GB/s.
    pub memory_bandwidth_gb_per_s: f64,
    /// Bandwidth of the instructions that only move data, in GB/s; the
    /// memory bandwidth when absent (a device whose data movement streams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_movement_gb_per_s: Option<f64>,
    /// Whether a transfer reads and writes this device's memory while it
    /// flies (an accelerator's DMA from its HBM), taking bandwidth from the
    /// kernels beside it ([`Profile::time_sharing_memory`]). weft's own
    /// runtime models transfers without touching device memory, so its CPU
    /// profiles leave this off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transfers_share_memory: bool,
    /// Transcendental evaluations per second, in G/s.
    pub transcendentals_g_per_s: f64,
    /// Matrix-unit operations (dot, convolution) per second, in G/s.
    pub matrix_gflop_per_s: ClassRates,
    /// Vector operations per second, in G/s.
    pub vector_gop_per_s: ClassRates,
    /// The smallest dimension (m, n or k) at which a product runs at half
    /// the matrix rate: Hockney's n½ (Hockney & Jesshope, *Parallel
    /// Computers*, 1981), by which a product whose smallest dimension is
    /// `n` runs at `matrix rate · n / (n + n½)`. Absent, every product runs
    /// at the matrix rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_half_size: Option<f64>,
    /// The cache an instruction's bytes stream from when they fit, when
    /// the profile describes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheSection>,
    /// The interconnect of a machine of these devices, when the profile
    /// describes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interconnect: Option<InterconnectSection>,
}

/// A profile's `[cache]` table: an instruction that reads and writes at
/// most `bytes` streams them at `bandwidth_gb_per_s`, not the memory
/// bandwidth. One level stands for the hierarchy: the largest working set
/// that still streams clearly faster than memory, measured by `weft
/// calibrate`, whatever levels make it up.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheSection {
    /// The most bytes an instruction may read and write to stream from the
    /// cache.
    pub bytes: f64,
    /// Bytes read and written per second from the cache, in GB/s.
    pub bandwidth_gb_per_s: f64,
}

/// A profile's `[interconnect]` table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterconnectSection {
    /// The topology in its text form ([`crate::topology`]), every link
    /// written out.
    pub topology: String,
}

/// The profiles weft carries, by name.
pub const BUILT_IN: &[&str] = &[REFERENCE, "h100-sxm", "tpu-v5e"];

/// Each built-in profile's file: every number of a public device's file
/// names its public source in a comment.
const BUILT_IN_FILES: &[(&str, &str)] = &[
    (REFERENCE, include_str!("../profiles/cpu-reference.toml")),
    ("h100-sxm", include_str!("../profiles/h100-sxm.toml")),
    ("tpu-v5e", include_str!("../profiles/tpu-v5e.toml")),
];

/// The built-in profile used when nothing else is chosen or cached.
pub const REFERENCE: &str = "cpu-reference";

/// The name of the profile `weft calibrate` measures and caches.
pub const LOCAL: &str = "cpu-local";

/// Where a resolved profile came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built into weft.
    BuiltIn,
    /// The calibrated profile cached at this path.
    Cached(PathBuf),
    /// A file the user named.
    File(PathBuf),
}

impl Profile {
    /// The built-in profile `name`, read from its file in the crate's
    /// `profiles/` directory.
    pub fn built_in(name: &str) -> Option<Profile> {
        let text = BUILT_IN_FILES
            .iter()
            .find(|(file_name, _)| *file_name == name)?
            .1;
        Some(Profile::from_toml(text).expect("the built-in profiles are valid"))
    }

    /// The topology of the profile's `[interconnect]`, if it has one.
    pub fn topology(&self) -> Option<Topology> {
        let interconnect = self.interconnect.as_ref()?;
        Topology::parse(&interconnect.topology, Link::default()).ok()
    }

    /// How long `work` takes on this device (see the module docs).
    pub fn time(&self, work: &Work) -> Duration {
        self.time_sharing_memory(work, 0.0)
    }

    /// How long `work` takes while a share `share` (0 to 1) of the memory
    /// bandwidth goes to something else — a transfer in flight writing what
    /// it receives and reading what it sends. Only the memory side of the
    /// roofline slows: a compute-bound kernel overlaps a transfer for free,
    /// a memory-bound one contends with it.
    pub fn time_sharing_memory(&self, work: &Work, share: f64) -> Duration {
        let mut compute = work.transcendentals / (self.transcendentals_g_per_s * 1e9);
        for class in NumberClass::ALL {
            let index = class.index();
            if work.matrix[index] > 0.0 {
                // r(n) = r∞ · n / (n + n½): the time is (ops + n½ · ops / n) / r∞.
                let thin = self.matrix_half_size.unwrap_or(0.0) * work.matrix_over_smallest[index];
                compute += (work.matrix[index] + thin) / (self.matrix_gflop_per_s.of(class) * 1e9);
            }
            if work.vector[index] > 0.0 {
                compute += work.vector[index] / (self.vector_gop_per_s.of(class) * 1e9);
            }
        }
        let left = 1.0 - share.clamp(0.0, MOST_MEMORY_SHARED);
        let memory = (work.bytes / (self.streaming_bandwidth(work.bytes) * 1e9)
            + work.moved / (self.data_movement_bandwidth() * 1e9))
            / left;
        let seconds = work.launches * self.launch_overhead_us * 1e-6 + compute.max(memory);
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
    }

    /// The share of this device's memory bandwidth a transfer takes that
    /// moves `bytes` through its memory in `duration` (capped at
    /// [`MOST_MEMORY_SHARED`]); 0 on a device whose transfers do not share
    /// its memory ([`Profile::transfers_share_memory`]).
    pub fn memory_share(&self, bytes: f64, duration: Duration) -> f64 {
        let seconds = duration.as_secs_f64();
        if !self.transfers_share_memory || seconds <= 0.0 || bytes <= 0.0 {
            return 0.0;
        }
        (bytes / seconds / (self.memory_bandwidth_gb_per_s * 1e9)).min(MOST_MEMORY_SHARED)
    }

    /// The bandwidth, in GB/s, an instruction reading and writing `bytes`
    /// streams them at: the cache's when they fit in it, else the
    /// memory's.
    pub fn streaming_bandwidth(&self, bytes: f64) -> f64 {
        match self.cache {
            Some(cache) if bytes <= cache.bytes => cache.bandwidth_gb_per_s,
            _ => self.memory_bandwidth_gb_per_s,
        }
    }

    /// The bandwidth of data movement, in GB/s.
    pub fn data_movement_bandwidth(&self) -> f64 {
        self.data_movement_gb_per_s
            .unwrap_or(self.memory_bandwidth_gb_per_s)
    }

    /// Reads a profile from TOML text, checking every rate is a positive
    /// finite number.
    pub fn from_toml(text: &str) -> Result<Profile, String> {
        let profile: Profile = toml::from_str(text).map_err(|e| e.to_string())?;
        profile.check()?;
        Ok(profile)
    }

    /// The profile as TOML text, with a comment on each number.
    pub fn to_toml(&self) -> String {
        let rates = |r: &ClassRates| {
            format!(
                "f64 = {}\nf32 = {}\nf16 = {}\ninteger = {}\n",
                r.f64, r.f32, r.f16, r.integer
            )
        };
        format!(
            "# A weft device profile (see `weft calibrate --help`).\n\
             name = {}\n\
             description = {}\n\n\
             # Fixed cost of every instruction that does work.\n\
             launch_overhead_us = {}\n\
             # Bytes read and written per second, in GB/s.\n\
             memory_bandwidth_gb_per_s = {}\n\
             {}\
             # exp, log, tanh, sqrt, … per second, in G/s.\n\
             transcendentals_g_per_s = {}\n\n\
             # Multiply-adds of dot and convolution (2 operations each), in G/s.\n\
             [matrix_gflop_per_s]\n{}\n\
             # Elementwise operations, reductions, comparisons, in G/s.\n\
             [vector_gop_per_s]\n{}{}",
            toml_string(&self.name),
            toml_string(&self.description),
            self.launch_overhead_us,
            self.memory_bandwidth_gb_per_s,
            match self.data_movement_gb_per_s {
                Some(rate) => format!(
                    "# Bytes per second of instructions that only move data, in GB/s.\ndata_movement_gb_per_s = {rate}\n"
                ),
                None => String::new(),
            } + &match self.matrix_half_size {
                Some(size) => format!(
                    "# The smallest dimension of a product at which it runs at half the matrix rate (Hockney's n½).\nmatrix_half_size = {size}\n"
                ),
                None => String::new(),
            } + if self.transfers_share_memory {
                "# A transfer in flight takes memory bandwidth from the kernels beside it.\ntransfers_share_memory = true\n"
            } else {
                ""
            },
            self.transcendentals_g_per_s,
            rates(&self.matrix_gflop_per_s),
            rates(&self.vector_gop_per_s),
            match &self.cache {
                Some(cache) => format!(
                    "\n# An instruction reading and writing at most `bytes` streams them from the cache, in GB/s.\n[cache]\nbytes = {}\nbandwidth_gb_per_s = {}\n",
                    cache.bytes, cache.bandwidth_gb_per_s
                ),
                None => String::new(),
            } + &match &self.interconnect {
                Some(interconnect) => format!(
                    "\n# The machine's links (see `weft run --topology`).\n[interconnect]\ntopology = {}\n",
                    toml_string(&interconnect.topology)
                ),
                None => String::new(),
            },
        )
    }

    /// Every rate positive and finite; the topology readable.
    fn check(&self) -> Result<(), String> {
        if let Some(interconnect) = &self.interconnect {
            Topology::parse(&interconnect.topology, Link::default())
                .map_err(|e| format!("`interconnect.topology`: {e}"))?;
        }
        let mut numbers = vec![
            ("launch_overhead_us", self.launch_overhead_us, true),
            (
                "memory_bandwidth_gb_per_s",
                self.memory_bandwidth_gb_per_s,
                false,
            ),
            (
                "data_movement_gb_per_s",
                self.data_movement_bandwidth(),
                false,
            ),
            (
                "transcendentals_g_per_s",
                self.transcendentals_g_per_s,
                false,
            ),
        ];
        for class in NumberClass::ALL {
            numbers.push((
                "matrix_gflop_per_s",
                self.matrix_gflop_per_s.of(class),
                false,
            ));
            numbers.push(("vector_gop_per_s", self.vector_gop_per_s.of(class), false));
        }
        if let Some(size) = self.matrix_half_size {
            numbers.push(("matrix_half_size", size, true));
        }
        if let Some(cache) = &self.cache {
            numbers.push(("cache.bytes", cache.bytes, false));
            numbers.push(("cache.bandwidth_gb_per_s", cache.bandwidth_gb_per_s, false));
        }
        for (field, value, zero_allowed) in numbers {
            let valid = value.is_finite() && (value > 0.0 || (zero_allowed && value == 0.0));
            if !valid {
                return Err(format!(
                    "`{field}` is {value}; it must be a positive, finite number"
                ));
            }
        }
        Ok(())
    }

    /// The profile `choice` names — a path to a TOML file (any name with a
    /// `/` or ending in `.toml`), a built-in name, or `cpu-local` — or,
    /// without a choice, the cached `cpu-local` if there is one, else
    /// [`REFERENCE`].
    pub fn resolve(choice: Option<&str>) -> Result<(Profile, Origin), String> {
        let cached = cache_directory().map(|dir| dir.join(format!("{LOCAL}.toml")));
        match choice {
            Some(path) if path.contains('/') || path.ends_with(".toml") => {
                let path = PathBuf::from(path);
                Ok((Profile::read(&path)?, Origin::File(path)))
            }
            Some(LOCAL) => match cached {
                Some(path) if path.exists() => Ok((Profile::read(&path)?, Origin::Cached(path))),
                _ => Err(format!(
                    "no `{LOCAL}` profile is cached yet\n  hint: `weft calibrate` measures this machine and caches it"
                )),
            },
            Some(name) => Profile::built_in(name)
                .map(|profile| (profile, Origin::BuiltIn))
                .ok_or_else(|| {
                    format!(
                        "no profile named `{name}`; the profiles are {LOCAL} (after `weft calibrate`), {}, or a path to a .toml file",
                        BUILT_IN.join(", ")
                    )
                }),
            None => match cached {
                Some(path) if path.exists() => Ok((Profile::read(&path)?, Origin::Cached(path))),
                _ => Ok((
                    Profile::built_in(REFERENCE).expect("the reference profile is built in"),
                    Origin::BuiltIn,
                )),
            },
        }
    }

    /// Reads the profile file at `path`.
    pub fn read(path: &Path) -> Result<Profile, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the profile {}: {e}", path.display()))?;
        Profile::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Where `weft calibrate` caches `cpu-local.toml`: `$WEFT_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/weft`, else `$HOME/.cache/weft`.
pub fn cache_directory() -> Option<PathBuf> {
    let from = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = from("WEFT_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = from("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("weft"));
    }
    from("HOME").map(|home| PathBuf::from(home).join(".cache").join("weft"))
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_round_trips_through_its_file() {
        let profile = Profile::built_in(REFERENCE).expect("built in");
        let text = profile.to_toml();
        assert_eq!(Profile::from_toml(&text), Ok(profile));
    }

    #[test]
    fn bad_rates_are_refused_by_name() {
        let text = Profile::built_in(REFERENCE)
            .expect("built in")
            .to_toml()
            .replace(
                "memory_bandwidth_gb_per_s = 12",
                "memory_bandwidth_gb_per_s = 0",
            );
        let error = Profile::from_toml(&text).expect_err("zero bandwidth");
        assert!(error.contains("memory_bandwidth_gb_per_s"), "{error}");
        assert!(Profile::from_toml("name = 1").is_err());
    }

    #[test]
    fn time_is_a_roofline_plus_launch() {
        let mut profile = Profile::built_in(REFERENCE).expect("built in");
        profile.launch_overhead_us = 1.0;
        profile.memory_bandwidth_gb_per_s = 10.0;
        profile.vector_gop_per_s.f32 = 1.0;
        let mut work = Work::FREE;
        work.launches = 1.0;
        work.vector[NumberClass::F32.index()] = 1e6; // 1 ms at 1 G/s
        work.bytes = 1e6; // 0.1 ms at 10 GB/s: hidden under compute
        assert_eq!(profile.time(&work), Duration::from_micros(1001));
        work.bytes = 1e8; // 10 ms: memory bound
        assert_eq!(profile.time(&work), Duration::from_micros(10_001));
        assert_eq!(profile.time(&Work::FREE), Duration::ZERO);
    }

    #[test]
    fn a_cache_streams_what_fits_in_it() {
        let mut profile = Profile::built_in(REFERENCE).expect("built in");
        profile.launch_overhead_us = 0.0;
        profile.memory_bandwidth_gb_per_s = 10.0;
        profile.cache = Some(CacheSection {
            bytes: 1e6,
            bandwidth_gb_per_s: 40.0,
        });
        let mut work = Work::FREE;
        work.bytes = 1e6; // fits: 25 µs at 40 GB/s
        assert_eq!(profile.time(&work), Duration::from_micros(25));
        work.bytes = 2e6; // does not: 200 µs at 10 GB/s
        assert_eq!(profile.time(&work), Duration::from_micros(200));
        let text = profile.to_toml();
        assert!(text.contains("[cache]"), "{text}");
        assert_eq!(Profile::from_toml(&text), Ok(profile));
    }

    #[test]
    fn a_thin_product_runs_below_the_peak_by_hockneys_half_size() {
        let mut profile = Profile::built_in(REFERENCE).expect("built in");
        profile.launch_overhead_us = 0.0;
        profile.matrix_gflop_per_s.f32 = 100.0;
        let mut work = Work::FREE;
        let f32 = NumberClass::F32.index();
        work.matrix[f32] = 1e9;
        work.matrix_over_smallest[f32] = 1e9 / 50.0; // smallest dimension 50
        assert_eq!(
            profile.time(&work),
            Duration::from_millis(10),
            "no n½: the peak"
        );
        // n½ = 50: half the peak at a smallest dimension of 50.
        profile.matrix_half_size = Some(50.0);
        assert_eq!(profile.time(&work), Duration::from_millis(20));
        let text = profile.to_toml();
        assert!(text.contains("matrix_half_size = 50"), "{text}");
        assert_eq!(Profile::from_toml(&text), Ok(profile));
    }

    #[test]
    fn every_built_in_profile_reads_and_round_trips() {
        for name in BUILT_IN {
            let profile = Profile::built_in(name).expect(name);
            assert_eq!(&profile.name, name);
            assert_eq!(Profile::from_toml(&profile.to_toml()), Ok(profile.clone()));
        }
        let h100 = Profile::built_in("h100-sxm").expect("built in");
        assert_eq!(
            h100.topology().map(|t| t.to_string()),
            Some("nodes:8:intra=450GB/s,3us:inter=50GB/s,10us".into())
        );
        let tpu = Profile::built_in("tpu-v5e").expect("built in");
        assert_eq!(tpu.topology().and_then(|t| t.capacity()), Some(256));
        assert_eq!(
            Profile::built_in(REFERENCE).and_then(|p| p.topology()),
            None
        );
    }

    #[test]
    fn every_number_of_a_public_profile_cites_its_source() {
        for (name, text) in BUILT_IN_FILES.iter().filter(|(name, _)| *name != REFERENCE) {
            let lines: Vec<&str> = text.lines().collect();
            for (index, line) in lines.iter().enumerate() {
                let is_setting = line.contains(" = ") && !line.starts_with('#');
                if is_setting && !line.starts_with("name") && !line.starts_with("description") {
                    // The comment is right above, or above the table's header.
                    let above = lines[..index]
                        .iter()
                        .rev()
                        .find(|l| !l.starts_with('['))
                        .copied()
                        .unwrap_or_default();
                    assert!(
                        above.starts_with('#'),
                        "{name}: `{line}` has no comment above it"
                    );
                }
            }
        }
    }

    #[test]
    fn a_bad_topology_is_refused() {
        let mut text = Profile::built_in("tpu-v5e").expect("built in").to_toml();
        text = text.replace("torus:16x16", "torus:16y16");
        let error = Profile::from_toml(&text).expect_err("bad topology");
        assert!(error.contains("interconnect.topology"), "{error}");
    }

    #[test]
    fn unknown_names_list_the_choices() {
        let error = Profile::resolve(Some("tpu-v9")).expect_err("unknown");
        assert!(error.contains(REFERENCE), "{error}");
    }

    #[test]
    fn a_transfer_slows_memory_bound_work_only() {
        let profile = Profile::built_in("h100-sxm").unwrap();
        let mut streaming = Work::FREE;
        streaming.bytes = 1e9;
        let mut dense = Work::FREE;
        dense.matrix[NumberClass::F32.index()] = 1e13;
        dense.bytes = 1e6;
        assert_eq!(
            profile.time_sharing_memory(&dense, 0.5),
            profile.time(&dense)
        );
        let alone = profile.time(&streaming).as_secs_f64();
        let shared = profile.time_sharing_memory(&streaming, 0.5).as_secs_f64();
        assert!(
            (shared / alone - 2.0).abs() < 1e-4,
            "{shared} against {alone}"
        );
        // Half the bandwidth for a second: half the share.
        let half = profile.memory_bandwidth_gb_per_s * 1e9 / 2.0;
        assert!((profile.memory_share(half, Duration::from_secs(1)) - 0.5).abs() < 1e-9);
        assert_eq!(
            profile.memory_share(1e30, Duration::from_secs(1)),
            MOST_MEMORY_SHARED
        );
    }
}
