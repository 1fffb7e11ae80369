//! Floating-point text: C's `%g` formatting (which XLA uses for every float it
//! prints), XLA's round-trip rule per element type, and parsing.

use crate::element_type::ElementType;

/// Formats `value` as C's `printf("%.{precision}g")` does.
pub fn format_g(value: f64, precision: usize) -> String {
    if value.is_nan() {
        return if value.is_sign_negative() {
            "-nan"
        } else {
            "nan"
        }
        .to_string();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let p = precision.max(1);
    if value == 0.0 {
        return if value.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Scientific form with p significant digits gives the decimal exponent after
    // rounding, which decides the style exactly as C does.
    let sci = format!("{:.*e}", p - 1, value);
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exponent.parse().unwrap_or(0);
    if x < -4 || x >= p as i32 {
        let mantissa = strip_fraction_zeros(mantissa);
        let sign = if x < 0 { '-' } else { '+' };
        let magnitude = x.unsigned_abs();
        if magnitude < 10 {
            format!("{mantissa}e{sign}0{magnitude}")
        } else {
            format!("{mantissa}e{sign}{magnitude}")
        }
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        let fixed = format!("{value:.decimals$}");
        strip_fraction_zeros(&fixed).to_string()
    }
}

fn strip_fraction_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// XLA's text for an `f32`: `%.6g` if that reads back exactly, else `%.9g`.
pub fn format_f32(value: f32) -> String {
    if !value.is_nan() {
        let short = format_g(f64::from(value), 6);
        if short.parse::<f32>().ok() == Some(value) {
            return short;
        }
    }
    format_g(f64::from(value), 9)
}

/// XLA's text for an `f64`: `%.15g` if that reads back exactly, else `%.17g`.
pub fn format_f64(value: f64) -> String {
    if !value.is_nan() {
        let short = format_g(value, 15);
        if short.parse::<f64>().ok() == Some(value) {
            return short;
        }
    }
    format_g(value, 17)
}

/// The `%g` precision XLA prints a narrow float type with (its `max_digits10`).
pub fn narrow_precision(elem: ElementType) -> usize {
    match elem {
        ElementType::F16 => 5,
        ElementType::Bf16 => 4,
        ElementType::F8E4M3
        | ElementType::F8E4M3Fn
        | ElementType::F8E4M3B11Fnuz
        | ElementType::F8E4M3Fnuz
        | ElementType::F8E3M4
        | ElementType::F6E2M3Fn => 3,
        _ => 2,
    }
}

/// Parses a decimal, integer, `inf`, `-inf`, `nan` or `-nan` (payloads are
/// handled by the literal parser).
pub fn parse_f64(text: &str) -> Option<f64> {
    match text {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        "-nan" => Some(-f64::NAN),
        _ => text.parse::<f64>().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_matches_c() {
        assert_eq!(format_g(42.0, 6), "42");
        assert_eq!(format_g(0.001, 6), "0.001");
        assert_eq!(format_g(1e-5, 6), "1e-05");
        assert_eq!(format_g(0.0001, 6), "0.0001");
        assert_eq!(format_g(123456.0, 6), "123456");
        assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
        assert_eq!(format_g(3.4028234663852886e38, 6), "3.40282e+38");
        assert_eq!(format_g(-57344.0, 4), "-5.734e+04");
        assert_eq!(format_g(1e100, 6), "1e+100");
        assert_eq!(format_g(9.9999999, 6), "10");
        assert_eq!(format_g(-0.0, 6), "-0");
    }

    #[test]
    fn round_trip_precision() {
        assert_eq!(format_f32(0.1), "0.1");
        assert_eq!(format_f32(-0.707_106_77), "-0.707106769");
        assert_eq!(format_f64(-0.6666666666666666), "-0.66666666666666663");
        assert_eq!(format_f64(0.5), "0.5");
        assert_eq!(format_f32(f32::NEG_INFINITY), "-inf");
    }
}
