//! `weft calibrate`: measure this machine's weft kernels and write the
//! device profile virtual timing uses (`cpu-local`).
//!
//! Each number of a profile ([`weft_cost::Profile`]) is measured by running
//! a small program on one device and dividing its modelled work
//! ([`weft_cost::work`], the same counts the virtual clock charges) by the
//! time it took, the median of several runs:
//!
//! - launch overhead: a chain of scalar additions (nothing but overhead);
//! - memory bandwidth and cache: chains of negations of arrays from
//!   128 KiB to 64 MiB (a memory mountain): the largest streams from
//!   memory; the largest that still streams clearly faster sizes the cache
//!   ([`cache_of`]);
//! - vector rates, per number class: chains of elementwise additions on
//!   arrays that fit in cache;
//! - transcendental rate: chains of tanh, exp, log, logistic and rsqrt on
//!   such arrays;
//! - data-movement bandwidth: a broadcast, a transpose, a concatenation, a
//!   strided slice and a pad of layer-sized arrays, together;
//! - matrix rates, per number class: a layer's `dot` (`[128,1024] ×
//!   [1024,1024]`) in the three layouts programs use (plain, transposed
//!   left operand, transposed right operand), and as many operations in
//!   square `[512,512]` ones. The thin products run slower: the two speeds
//!   give the kernel's half-peak size n½ (Hockney's model, [`half_size`]),
//!   and the rates are the peaks ([`peak_rate`]).
//!
//! Kernels run as a multi-device run under measured timing runs them: a
//! device a core, every core busy, each device on one thread, as a device
//! of a virtual run is a core of a machine whose devices outnumber its
//! cores.
//!
//! Each rate is taken after the launch overhead of the program's
//! instructions is subtracted, so a profile's parts add up to the measured
//! times again. The profile is written to the cache
//! ([`weft_cost::profile::cache_directory`]) unless `--output` names a file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use weft_cost::profile::{CacheSection, ClassRates, LOCAL};
use weft_cost::work::NumberClass;
use weft_cost::{Profile, Work};
use weft_ir::Module;
use weft_runtime::devices::clock::Timing;
use weft_runtime::devices::{Grid, GridOptions};

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// Write the profile here instead of caching it as `cpu-local`.
    #[arg(long, short, value_name = "TOML")]
    output: Option<PathBuf>,
    /// List the profiles `--profile` accepts — cpu-local (when calibrated)
    /// and the built-in ones, with where their numbers come from — and
    /// measure nothing.
    #[arg(long)]
    list: bool,
    /// Runs of each measurement (the median counts).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
}

pub fn run(args: &CalibrateArgs) -> ExitCode {
    match calibrate(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            tell!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn calibrate(args: &CalibrateArgs) -> Result<(), String> {
    if args.list {
        list_profiles();
        return Ok(());
    }
    let path = match &args.output {
        Some(path) => path.clone(),
        None => weft_cost::profile::cache_directory()
            .ok_or(
                "no cache directory (set WEFT_CACHE_DIR, XDG_CACHE_HOME or HOME), or give --output",
            )?
            .join(format!("{LOCAL}.toml")),
    };
    let bench = Bench {
        repeat: args.repeat as usize,
    };
    tell!("calibrating: timing weft's kernels on every core at once (a few seconds)");
    let launch = bench.launch_overhead()?;
    let (memory, cache) = bench.memory_hierarchy(launch)?;
    let data_movement = bench.data_movement_bandwidth(launch)?;
    let mut vector = ClassRates {
        f64: 0.0,
        f32: 0.0,
        f16: 0.0,
        integer: 0.0,
    };
    let mut matrix = vector;
    let classes = [
        (NumberClass::F64, "f64"),
        (NumberClass::F32, "f32"),
        (NumberClass::F16, "bf16"),
        (NumberClass::Integer, "s32"),
    ];
    let mut products = Vec::with_capacity(classes.len());
    for (class, elem) in classes {
        vector.set(class, bench.vector_rate(elem, class, launch)?);
        products.push((class, bench.matrix_samples(elem, class, launch)?));
    }
    // The kernel's shape penalty, from the class programs use most.
    let matrix_half_size = products
        .iter()
        .find(|(class, _)| *class == NumberClass::F32)
        .and_then(|(class, samples)| half_size(samples, *class));
    for (class, samples) in &products {
        matrix.set(*class, peak_rate(samples, *class, matrix_half_size));
    }
    let transcendentals = bench.transcendental_rate(launch)?;
    let profile = Profile {
        name: LOCAL.into(),
        description: format!(
            "this machine, a core of it with every core busy, measured by weft calibrate {} (weft {})",
            today(),
            env!("CARGO_PKG_VERSION")
        ),
        launch_overhead_us: round(launch.as_secs_f64() * 1e6),
        memory_bandwidth_gb_per_s: memory,
        data_movement_gb_per_s: Some(round(data_movement)),
        // weft's runtime models transfers without touching memory.
        transfers_share_memory: false,
        transcendentals_g_per_s: round(transcendentals),
        matrix_gflop_per_s: rounded(matrix),
        vector_gop_per_s: rounded(vector),
        matrix_half_size,
        cache,
        // A measured core says nothing of the links between devices.
        interconnect: None,
    };
    let text = profile.to_toml();
    // Refuse to write what could not be read back.
    Profile::from_toml(&text).map_err(|e| format!("the measured profile is invalid: {e}"))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    say!("{text}");
    tell!(
        "wrote {}; `weft run` uses it for virtual timing{}",
        path.display(),
        if args.output.is_some() {
            " with --profile FILE"
        } else {
            " from now on"
        }
    );
    Ok(())
}

/// Prints every profile `--profile` accepts by name, one a line.
fn list_profiles() {
    let cached = weft_cost::profile::cache_directory()
        .map(|dir| dir.join(format!("{LOCAL}.toml")))
        .filter(|path| path.exists());
    match cached {
        Some(path) => say!("{LOCAL}  this machine, calibrated ({})", path.display()),
        None => say!("{LOCAL}  this machine (not calibrated yet: run `weft calibrate`)"),
    }
    for name in weft_cost::profile::BUILT_IN {
        let profile = Profile::built_in(name).expect("built in");
        let topology = profile
            .topology()
            .map(|t| format!("; topology {t}"))
            .unwrap_or_default();
        say!("{name}  {}{topology}", profile.description);
    }
}

/// Three significant digits.
fn round(value: f64) -> f64 {
    if value <= 0.0 || !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(2 - value.log10().floor() as i32);
    (value * scale).round() / scale
}

fn rounded(rates: ClassRates) -> ClassRates {
    ClassRates {
        f64: round(rates.f64),
        f32: round(rates.f32),
        f16: round(rates.f16),
        integer: round(rates.integer),
    }
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The memory bandwidth and the cache of a memory mountain: (footprint in
/// bytes, GB/s) from the smallest footprint to the largest, the largest
/// streaming from memory (see [`Bench::memory_hierarchy`]).
fn cache_of(mountain: &[(f64, f64)]) -> (f64, Option<CacheSection>) {
    let memory = mountain.last().map_or(0.0, |&(_, rate)| rate);
    let fastest = mountain.iter().map(|&(_, rate)| rate).fold(0.0, f64::max);
    // A cache worth a level of the model streams a quarter faster at least.
    if fastest < 1.25 * memory {
        return (round(memory), None);
    }
    let threshold = (fastest * memory).sqrt();
    let Some(last_fast) = mountain.iter().rposition(|&(_, rate)| rate >= threshold) else {
        return (round(memory), None);
    };
    let mut rates: Vec<f64> = mountain[..=last_fast]
        .iter()
        .map(|&(_, rate)| rate)
        .collect();
    rates.sort_by(f64::total_cmp);
    let cache = CacheSection {
        bytes: mountain[last_fast].0,
        bandwidth_gb_per_s: round(rates[rates.len() / 2]),
    };
    (round(memory), Some(cache))
}

/// The most devices a calibration program runs on at once: every core of a
/// workstation, while a many-core server's calibration stays within a few
/// GiB (the largest memory program holds about 200 MiB per device).
const MOST_DEVICES: usize = 16;

struct Bench {
    repeat: usize,
}

impl Bench {
    /// The median time of running `text`'s entry, and the work weft's cost
    /// model counts in it.
    ///
    /// The program runs the way a multi-device run runs it: on as many
    /// devices as the machine has cores (up to [`MOST_DEVICES`]), all at
    /// once, each timed by its
    /// measured clock ([`Timing::Measured`]: its thread's CPU time). Cores
    /// share caches and memory bandwidth, and a core's kernel alone is
    /// faster than the same kernel beside its neighbours' (a third faster
    /// for a layer's dot, here); virtual timing stands in for runs whose
    /// devices keep every core busy, so that is the speed to measure.
    fn time(&self, text: &str) -> Result<(Duration, Work), String> {
        let module: Module = weft_ir::text::parse(text)
            .map_err(|d| format!("a calibration program does not parse: {}", d.message))?;
        let entry = module.entry.ok_or("a calibration program has no entry")?;
        let devices = std::thread::available_parallelism()
            .map_or(1, |p| p.get())
            .min(MOST_DEVICES);
        let grid = Grid {
            replicas: devices,
            partitions: 1,
        };
        let arguments: Vec<weft_runtime::Value> = module
            .comp(entry)
            .params()
            .iter()
            .map(|&p| {
                let array = module.shapes.as_array(module.shape_of(p)).expect("arrays");
                weft_runtime::Value::Tensor(weft_runtime::random::tensor(
                    &mut weft_runtime::random::SplitMix64::new(7),
                    array.elem,
                    &array.dims,
                ))
            })
            .collect();
        let work = module
            .comp(entry)
            .body()
            .iter()
            .fold(Work::FREE, |sum, &i| {
                sum.plus(&weft_cost::work::of(&module, i))
            });
        let options = GridOptions {
            timing: Timing::Measured,
            ..GridOptions::default()
        };
        let run = || {
            weft_runtime::devices::run_grid(
                &module,
                grid,
                vec![arguments.clone(); devices],
                options.clone(),
            )
            .map_err(|e| e.to_string())
        };
        // One run to warm caches and the allocator.
        run()?;
        let mut times = Vec::with_capacity(self.repeat * devices);
        for _ in 0..self.repeat {
            times.extend(run()?.iter().map(|device| device.timeline.busy));
        }
        times.sort();
        Ok((times[times.len() / 2], work))
    }

    /// Seconds left for the work once `launch` per launch is taken off.
    fn net_seconds(time: Duration, work: &Work, launch: Duration) -> f64 {
        (time.as_secs_f64() - work.launches * launch.as_secs_f64()).max(1e-9)
    }

    /// A chain of scalar additions: overhead and nothing else.
    fn launch_overhead(&self) -> Result<Duration, String> {
        let count = 4000;
        let mut text =
            String::from("HloModule calibrate_launch\nENTRY e {\n  v0 = f32[] parameter(0)\n");
        for i in 1..=count {
            text.push_str(&format!("  v{i} = f32[] add(v{}, v0)\n", i - 1));
        }
        text.push_str(&format!("  ROOT r = f32[] negate(v{count})\n}}\n"));
        let (time, work) = self.time(&text)?;
        Ok(time.div_f64(work.launches.max(1.0)))
    }

    /// Negations of f32 arrays from 128 KiB to 64 MiB (a memory
    /// mountain): the bandwidth of the largest, which streams from memory,
    /// and the cache, when smaller arrays stream clearly faster: its size is
    /// the largest footprint (bytes read and written) whose bandwidth is at
    /// least the geometric mean of the fastest and the memory's, its
    /// bandwidth the median of the footprints up to it.
    fn memory_hierarchy(&self, launch: Duration) -> Result<(f64, Option<CacheSection>), String> {
        // Each program negates 2^24 elements in all, as a chain.
        const TOTAL: usize = 1 << 24;
        let mut mountain: Vec<(f64, f64)> = Vec::new();
        for log_size in 15..=24 {
            let size = 1usize << log_size;
            let count = (TOTAL / size).max(1);
            let mut text = format!(
                "HloModule calibrate_memory\nENTRY e {{\n  v0 = f32[{size}] parameter(0)\n"
            );
            for i in 1..=count {
                text.push_str(&format!("  v{i} = f32[{size}] negate(v{})\n", i - 1));
            }
            text.push_str(&format!("  ROOT r = f32[{size}] negate(v{count})\n}}\n"));
            let (time, work) = self.time(&text)?;
            let footprint = work.bytes / (count + 1) as f64;
            mountain.push((
                footprint,
                work.bytes / Bench::net_seconds(time, &work, launch) / 1e9,
            ));
        }
        tell!(
            "memory mountain (bytes read and written: GB/s): {}",
            mountain
                .iter()
                .map(|&(footprint, rate)| format!(
                    "{} KiB: {}",
                    footprint as u64 / 1024,
                    round(rate)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(cache_of(&mountain))
    }

    /// A chain of elementwise additions on 16 Ki elements of `elem`:
    /// G operations per second.
    fn vector_rate(&self, elem: &str, class: NumberClass, launch: Duration) -> Result<f64, String> {
        let count = 64;
        let mut text =
            format!("HloModule calibrate_vector\nENTRY e {{\n  v0 = {elem}[16384] parameter(0)\n");
        for i in 1..=count {
            text.push_str(&format!("  v{i} = {elem}[16384] add(v{}, v0)\n", i - 1));
        }
        text.push_str(&format!("  ROOT r = {elem}[16384] negate(v{count})\n}}\n"));
        let (time, work) = self.time(&text)?;
        // Memory and compute overlap in the model; in cache, compute bounds.
        Ok(work.vector[class.index()] / Bench::net_seconds(time, &work, launch) / 1e9)
    }

    /// A chain of the transcendentals programs use most — tanh, exp, log,
    /// logistic, rsqrt, each a kernel of its own speed — on 16 Ki f32, each
    /// block of five after a multiply that keeps the values in range: G
    /// per second of the mix.
    fn transcendental_rate(&self, launch: Duration) -> Result<f64, String> {
        let blocks = 8;
        let mut text = String::from(
            "HloModule calibrate_transcendentals\nENTRY e {\n  v0 = f32[16384] parameter(0)\n",
        );
        for i in 1..=blocks {
            let previous = i - 1;
            text.push_str(&format!(
                "  m{i} = f32[16384] multiply(v{previous}, v0)\n  \
                 t{i} = f32[16384] tanh(m{i})\n  \
                 e{i} = f32[16384] exponential(t{i})\n  \
                 l{i} = f32[16384] log(e{i})\n  \
                 sig{i} = f32[16384] logistic(l{i})\n  \
                 v{i} = f32[16384] rsqrt(sig{i})\n"
            ));
        }
        text.push_str(&format!("  ROOT r = f32[16384] negate(v{blocks})\n}}\n"));
        let (time, work) = self.time(&text)?;
        // The multiplies run at the f32 vector rate measured before; what
        // is left is the transcendentals'.
        let f32_vector = self.vector_rate("f32", NumberClass::F32, launch)? * 1e9;
        let vector_seconds = work.vector[NumberClass::F32.index()] / f32_vector;
        let seconds = (Bench::net_seconds(time, &work, launch) - vector_seconds).max(1e-9);
        Ok(work.transcendentals / seconds / 1e9)
    }

    /// Broadcast, transpose, concatenate, strided slice and pad: GB/s of
    /// the bytes they move.
    fn data_movement_bandwidth(&self, launch: Duration) -> Result<f64, String> {
        let text = "HloModule calibrate_data_movement
ENTRY e {
  v = f32[1024] parameter(0)
  m = f32[1024,1024] parameter(1)
  zero = f32[] constant(0)
  b = f32[512,1024] broadcast(v), dimensions={1}
  t = f32[1024,1024] transpose(m), dimensions={1,0}
  c = f32[2048,1024] concatenate(m, m), dimensions={0}
  s = f32[512,512] slice(m), slice={[0:1024:2], [0:1024:2]}
  p = f32[1024,1280] pad(m, zero), padding=0_0x128_128
  ROOT r = (f32[512,1024], f32[1024,1024], f32[2048,1024], f32[512,512], f32[1024,1280]) tuple(b, t, c, s, p)
}
";
        let (time, work) = self.time(text)?;
        Ok(work.moved / Bench::net_seconds(time, &work, launch) / 1e9)
    }

    /// Products of `elem` as programs use them, timed apart by shape: a
    /// layer's thin products (`[128,1024] × [1024,1024]`, in the three
    /// layouts: plain, transposed left operand, transposed right operand)
    /// and as many operations in three square ones (`[512,512]²`). Returns
    /// each program's time (less its launches) and work.
    fn matrix_samples(
        &self,
        elem: &str,
        class: NumberClass,
        launch: Duration,
    ) -> Result<[(f64, Work); 2], String> {
        // The slow paths (16-bit floats, integers) on smaller layers.
        let (rows, size) = if class == NumberClass::F32 || class == NumberClass::F64 {
            (128, 1024)
        } else {
            (32, 256)
        };
        let half = size / 2;
        let thin = format!(
            "HloModule calibrate_thin_dot
ENTRY e {{
  x = {elem}[{rows},{size}] parameter(0)
  w = {elem}[{size},{size}] parameter(1)
  g = {elem}[{rows},{size}] parameter(2)
  plain = {elem}[{rows},{size}] dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  left = {elem}[{size},{size}] dot(x, g), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  right = {elem}[{rows},{size}] dot(g, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}
  ROOT r = ({elem}[{rows},{size}], {elem}[{size},{size}], {elem}[{rows},{size}]) tuple(plain, left, right)
}}
"
        );
        let square = format!(
            "HloModule calibrate_square_dot
ENTRY e {{
  a = {elem}[{half},{half}] parameter(0)
  b = {elem}[{half},{half}] parameter(1)
  c = {elem}[{half},{half}] parameter(2)
  ab = {elem}[{half},{half}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  bc = {elem}[{half},{half}] dot(b, c), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  ca = {elem}[{half},{half}] dot(c, a), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  ROOT r = ({elem}[{half},{half}], {elem}[{half},{half}], {elem}[{half},{half}]) tuple(ab, bc, ca)
}}
"
        );
        let mut samples = [(0.0, Work::FREE); 2];
        for (sample, text) in samples.iter_mut().zip([thin, square]) {
            let (time, work) = self.time(&text)?;
            *sample = (Bench::net_seconds(time, &work, launch), work);
        }
        Ok(samples)
    }
}

/// Hockney's n½ of a kernel from a thin and a square product of one class
/// (seconds and work each): the rates r(n) = r∞ · n / (n + n½) at the two
/// smallest dimensions `a < b` give n½ = (q − 1) / (1/a − q/b), q being
/// r(b) / r(a). `None` when the square one is no faster.
fn half_size(samples: &[(f64, Work); 2], class: NumberClass) -> Option<f64> {
    let index = class.index();
    let [(thin_seconds, thin), (square_seconds, square)] = samples;
    let smallest = |work: &Work| work.matrix[index] / work.matrix_over_smallest[index];
    let (a, b) = (smallest(thin), smallest(square));
    let q = (square.matrix[index] / square_seconds) / (thin.matrix[index] / thin_seconds);
    let denominator = 1.0 / a - q / b;
    if !(q > 1.0 && denominator > 0.0 && a < b) {
        return None;
    }
    Some(round((q - 1.0) / denominator))
}

/// The peak matrix rate of a class, in G/s, given n½: the operations, and
/// the thin products' share below peak, over the time.
fn peak_rate(samples: &[(f64, Work); 2], class: NumberClass, half_size: Option<f64>) -> f64 {
    let index = class.index();
    let (seconds, operations) = samples.iter().fold((0.0, 0.0), |(t, o), (seconds, work)| {
        (
            t + seconds,
            o + work.matrix[index] + half_size.unwrap_or(0.0) * work.matrix_over_smallest[index],
        )
    });
    operations / seconds / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(round(12.3456), 12.3);
        assert_eq!(round(0.012345), 0.0123);
        assert_eq!(round(1234.5), 1230.0);
    }

    #[test]
    fn a_mountain_gives_the_memory_and_the_cache_below_it() {
        let mountain = [
            (256e3, 30.0),
            (512e3, 28.0),
            (1e6, 26.0),
            (2e6, 24.0),
            (4e6, 20.0),
            (8e6, 12.0),
            (16e6, 10.0),
        ];
        let (memory, cache) = cache_of(&mountain);
        assert_eq!(memory, 10.0);
        // √(30 · 10) ≈ 17.3: 4 MB is the last footprint above it.
        let cache = cache.expect("a cache");
        assert_eq!(cache.bytes, 4e6);
        assert_eq!(cache.bandwidth_gb_per_s, 26.0);
    }

    /// A sample of `operations` f32 matrix operations in products whose
    /// smallest dimension is `smallest`, taking `seconds`.
    fn product(seconds: f64, operations: f64, smallest: f64) -> (f64, Work) {
        let mut work = Work::FREE;
        work.matrix[NumberClass::F32.index()] = operations;
        work.matrix_over_smallest[NumberClass::F32.index()] = operations / smallest;
        (seconds, work)
    }

    #[test]
    fn hockneys_half_size_and_peak_come_back_from_two_shapes() {
        // r∞ = 100 G/s, n½ = 50: r(128) = 71.9 G/s, r(512) = 91.1 G/s.
        let rate = |n: f64| 100e9 * n / (n + 50.0);
        let operations = 8e8;
        let samples = [
            product(operations / rate(128.0), operations, 128.0),
            product(operations / rate(512.0), operations, 512.0),
        ];
        let half = half_size(&samples, NumberClass::F32).expect("thin is slower");
        assert_eq!(half, 50.0);
        let peak = peak_rate(&samples, NumberClass::F32, Some(half));
        assert!((peak - 100.0).abs() < 1e-6, "{peak}");
    }

    #[test]
    fn no_half_size_when_shape_does_not_matter() {
        let samples = [product(1.0, 1e9, 128.0), product(1.0, 1e9, 512.0)];
        assert_eq!(half_size(&samples, NumberClass::F32), None);
        assert_eq!(peak_rate(&samples, NumberClass::F32, None), 1.0);
    }

    #[test]
    fn a_flat_mountain_has_no_cache() {
        let (memory, cache) = cache_of(&[(256e3, 11.0), (16e6, 10.0)]);
        assert_eq!(memory, 10.0);
        assert_eq!(cache, None);
    }

    #[test]
    fn dates_are_civil() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20"), "{date}");
    }
}
