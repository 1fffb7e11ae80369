//! `weft calibrate`: measure this machine's weft kernels and write the
//! device profile virtual timing uses (`cpu-local`).
//!
//! Each number of a profile ([`weft_cost::Profile`]) is measured by running
//! a small program on one device and dividing its modelled work
//! ([`weft_cost::work`], the same counts the virtual clock charges) by the
//! time it took, the median of several runs:
//!
//! - launch overhead: a chain of scalar additions (nothing but overhead);
//! - memory bandwidth: negating a 64 MiB array (far from cache, so the
//!   stream of bytes bounds it, not the arithmetic);
//! - vector rates, per number class: chains of elementwise additions on
//!   arrays that fit in cache;
//! - transcendental rate: chains of `exponential` on such arrays;
//! - data-movement bandwidth: a broadcast, a transpose, a concatenation, a
//!   strided slice and a pad of layer-sized arrays, together;
//! - matrix rates, per number class: a layer's `dot` (`[128,1024] ×
//!   [1024,1024]`) in the three layouts programs use (plain, transposed
//!   left operand, transposed right operand), together.
//!
//! Kernels run on one thread, as a device of a virtual run is one core.
//!
//! Each rate is taken after the launch overhead of the program's
//! instructions is subtracted, so a profile's parts add up to the measured
//! times again. The profile is written to the cache
//! ([`weft_cost::profile::cache_directory`]) unless `--output` names a file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use weft_cost::profile::{ClassRates, LOCAL};
use weft_cost::work::NumberClass;
use weft_cost::{Profile, Work};
use weft_ir::Module;

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
    tell!("calibrating: timing weft's kernels on one core (a few seconds)");
    weft_runtime::set_kernel_threads(1);
    let launch = bench.launch_overhead()?;
    let memory = bench.memory_bandwidth(launch)?;
    let data_movement = bench.data_movement_bandwidth(launch)?;
    let mut vector = ClassRates {
        f64: 0.0,
        f32: 0.0,
        f16: 0.0,
        integer: 0.0,
    };
    let mut matrix = vector;
    for (class, elem) in [
        (NumberClass::F64, "f64"),
        (NumberClass::F32, "f32"),
        (NumberClass::F16, "bf16"),
        (NumberClass::Integer, "s32"),
    ] {
        vector.set(class, bench.vector_rate(elem, class, launch)?);
        matrix.set(class, bench.matrix_rate(elem, class, launch)?);
    }
    let transcendentals = bench.transcendental_rate(launch)?;
    let profile = Profile {
        name: LOCAL.into(),
        description: format!(
            "this machine, one core, measured by weft calibrate {} (weft {})",
            today(),
            env!("CARGO_PKG_VERSION")
        ),
        launch_overhead_us: round(launch.as_secs_f64() * 1e6),
        memory_bandwidth_gb_per_s: round(memory),
        data_movement_gb_per_s: Some(round(data_movement)),
        // weft's runtime models transfers without touching memory.
        transfers_share_memory: false,
        transcendentals_g_per_s: round(transcendentals),
        matrix_gflop_per_s: rounded(matrix),
        vector_gop_per_s: rounded(vector),
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

struct Bench {
    repeat: usize,
}

impl Bench {
    /// The median time of running `text`'s entry on zeros, and the work
    /// weft's cost model counts in it.
    fn time(&self, text: &str) -> Result<(Duration, Work), String> {
        let module: Module = weft_ir::text::parse(text)
            .map_err(|d| format!("a calibration program does not parse: {}", d.message))?;
        let entry = module.entry.ok_or("a calibration program has no entry")?;
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
        // One run to warm caches and the allocator.
        weft_runtime::run(&module, arguments.clone()).map_err(|e| e.to_string())?;
        let mut times: Vec<Duration> = (0..self.repeat)
            .map(|_| {
                let started = Instant::now();
                let outcome = weft_runtime::run(&module, arguments.clone());
                (started.elapsed(), outcome.is_ok())
            })
            .map(|(time, ok)| if ok { time } else { Duration::MAX })
            .collect();
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

    /// Negating a 64 MiB array, bound by memory: GB/s.
    fn memory_bandwidth(&self, launch: Duration) -> Result<f64, String> {
        let text = "HloModule calibrate_memory\nENTRY e {\n  a = f32[4096,4096] parameter(0)\n  ROOT r = f32[4096,4096] negate(a)\n}\n";
        let (time, work) = self.time(text)?;
        Ok(work.bytes / Bench::net_seconds(time, &work, launch) / 1e9)
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

    /// A chain of exponentials on 16 Ki f32: G per second.
    fn transcendental_rate(&self, launch: Duration) -> Result<f64, String> {
        let count = 16;
        let mut text =
            String::from("HloModule calibrate_exp\nENTRY e {\n  v0 = f32[16384] parameter(0)\n");
        for i in 1..=count {
            text.push_str(&format!(
                "  m{i} = f32[16384] multiply(v{}, v0)\n  v{i} = f32[16384] exponential(m{i})\n",
                i - 1
            ));
        }
        text.push_str(&format!("  ROOT r = f32[16384] negate(v{count})\n}}\n"));
        let (time, work) = self.time(&text)?;
        // The multiplies run at the f32 vector rate measured before; what
        // is left is the exponentials'.
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

    /// A layer's dot of `elem` in three layouts: G operations (2 per
    /// multiply-add) per second.
    fn matrix_rate(&self, elem: &str, class: NumberClass, launch: Duration) -> Result<f64, String> {
        // The slow paths (16-bit floats, integers) on smaller layers.
        let (rows, size) = if class == NumberClass::F32 || class == NumberClass::F64 {
            (128, 1024)
        } else {
            (32, 256)
        };
        let text = format!(
            "HloModule calibrate_dot
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
        let (time, work) = self.time(&text)?;
        Ok(work.matrix[class.index()] / Bench::net_seconds(time, &work, launch) / 1e9)
    }
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
    fn dates_are_civil() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert!(date.starts_with("20"), "{date}");
    }
}
