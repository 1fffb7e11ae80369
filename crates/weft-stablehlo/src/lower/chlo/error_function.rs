//! `erf`, `erfc` and `erf_inv` by the rational and polynomial approximations
//! of XLA's legalization (`f16`/`bf16` computed in `f32`):
//! - `erf` in `f32`: Eigen's `x α(x²) / β(x²)` on `x` clamped to `[-4, 4]`,
//!   clamped to `[-1, 1]`; in `f64`: Cephes' `x T(x²) / U(x²)` for `|x| < 1`,
//!   else `1 - erfc(x)`;
//! - `erfc`: `1 - erf(x)` for `|x| < 1` (Cephes' `x T(x²)` in `f32`), else
//!   Cephes' `e^(-x²)` times a rational function of `|x|` (`f64`: `P/Q` below
//!   8, `R/S` above) or a polynomial in `1/x²` (`f32`: `P` below 2, `R`
//!   above) divided by `|x|`, 0 where `-x²` passes the log of the smallest
//!   normal number, and `2 - erfc(-x)` for negative `x`;
//! - `erf_inv` in `f32`: Giles' polynomial in `w - 2.5` (`w < 5`) or
//!   `sqrt(w) - 3`, with `w = -log1p(-x²)`; in `f64`: Giles' three-range
//!   polynomial (`w < 6.25`, `w < 16`, above); `±inf` at `±1`.

use weft_ir::attrs::Direction;
use weft_ir::{ElementType, Instr, Opcode};

use super::Arithmetic;

/// Eigen's numerator `α(x²)` for `f32` `erf`.
const ERF_F32_ALPHA: [f64; 7] = [
    -2.726_142_258_013_06e-10,
    2.770_681_424_959_02e-8,
    -2.101_024_020_825_08e-6,
    -5.692_506_394_623_46e-5,
    -0.000_734_990_630_326_855,
    -0.002_954_599_808_540_25,
    -0.016_096_033_326_241_5,
];
/// Eigen's denominator `β(x²)` for `f32` `erf`.
const ERF_F32_BETA: [f64; 5] = [
    -1.456_607_184_649_96e-5,
    -0.000_213_374_055_278_905,
    -0.001_682_826_974_382_03,
    -0.007_373_329_167_204_68,
    -0.014_264_739_051_418_9,
];
/// Cephes' `T` for `f32` `erf` on `|x| ≤ 1`.
const ERF_F32_T: [f64; 7] = [
    7.853_861_353_153_693e-5,
    -0.000_801_019_362_518_490_3,
    0.005_188_327_685_732_524,
    -0.026_853_811_935_298_56,
    0.112_835_851_486_141_8,
    -0.376_126_258_242_33,
    1.128_379_165_726_71,
];
/// Cephes' `P` for `f32` `erfc` on `[1, 2)`, in `1/x²`.
const ERFC_F32_P: [f64; 9] = [
    0.023_268_199_700_683_86,
    -0.138_703_938_874_065_7,
    0.368_742_467_459_710_5,
    -0.582_473_302_727_866_6,
    0.621_000_462_174_598_3,
    -0.494_451_532_327_414_5,
    0.340_487_993_766_587_2,
    -0.274_112_702_818_465_6,
    0.563_825_942_738_647_2,
];
/// Cephes' `R` for `f32` `erfc` from 2 on, in `1/x²`.
const ERFC_F32_R: [f64; 8] = [
    -10.477_663_999_362_49,
    12.977_199_553_725_16,
    -7.495_518_717_768_503,
    2.921_019_019_210_786,
    -1.015_265_279_202_7,
    0.421_846_335_820_494_8,
    -0.282_076_743_974_051_4,
    0.564_189_506_775_407_5,
];
/// The log of the smallest normal `f32`, below which `e^(-x²)` underflows.
const MAX_LOG_F32: f64 = 88.722_839_052_068_35;

/// Cephes' `T` and `U` for `f64` `erf` on `|x| < 1`, in `x²`.
const ERF_F64_T: [f64; 5] = [
    9.604_973_739_870_516,
    90.026_019_720_384_27,
    2_232.005_345_946_843,
    7_003.325_141_128_051,
    55_592.301_301_039_49,
];
const ERF_F64_U: [f64; 6] = [
    1.0,
    33.561_714_164_750_31,
    521.357_949_780_152_7,
    4_594.323_829_709_801,
    22_629.000_061_389_095,
    49_267.394_260_863_59,
];
/// Cephes' `P`/`Q` for `f64` `erfc` on `[1, 8)` and `R`/`S` from 8 on, in `|x|`.
const ERFC_F64_P: [f64; 9] = [
    2.461_969_814_735_305e-10,
    0.564_189_564_831_068_9,
    7.463_210_564_422_699,
    48.637_197_098_568_14,
    196.520_832_956_077_1,
    526.445_194_995_477_3,
    934.528_527_171_957_6,
    1_027.551_886_895_157_2,
    557.535_335_369_399_4,
];
const ERFC_F64_Q: [f64; 9] = [
    1.0,
    13.228_195_115_474_499,
    86.707_214_088_598_97,
    354.937_778_887_819_9,
    975.708_501_743_205_5,
    1_823.909_166_879_097_3,
    2_246.337_608_187_109_7,
    1_656.663_091_941_613_4,
    557.535_340_817_727_7,
];
const ERFC_F64_R: [f64; 6] = [
    0.564_189_583_547_755_1,
    1.275_366_707_599_781,
    5.019_050_422_511_805,
    6.160_210_979_930_536,
    7.409_742_699_504_489_5,
    2.978_866_653_721_002_2,
];
const ERFC_F64_S: [f64; 7] = [
    1.0,
    2.260_528_632_201_172_6,
    9.396_035_249_380_015,
    12.048_953_980_809_666,
    17.081_445_074_756_59,
    9.608_968_090_632_859,
    3.369_076_451_000_815,
];
/// The log of the smallest normal `f64`.
const MAX_LOG_F64: f64 = 709.782_712_893_384;

/// The element types the error functions are defined on (after `f16`/`bf16`
/// became `f32`).
fn is_double(a: &Arithmetic<'_, '_>, x: Instr, op: &str) -> Result<bool, String> {
    match a.element(x) {
        ElementType::F64 => Ok(true),
        ElementType::F32 => Ok(false),
        other => Err(format!(
            "{op} of {other} is not supported (XLA defines it on f16, bf16, f32 and f64)"
        )),
    }
}

pub(super) fn erf(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    Ok(if is_double(a, x, "erf")? {
        erf_f64(a, x)
    } else {
        erf_f32(a, x)
    })
}

pub(super) fn erfc(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    let double = is_double(a, x, "erfc")?;
    let (tail, near_zero) = if double {
        (erfc_f64_tail(a, x), erf_f64_near_zero(a, x))
    } else {
        (erfc_f32_tail(a, x), erf_f32_near_zero(a, x))
    };
    let one = a.constant_like(1.0, x);
    let from_erf = a.subtract(one, near_zero);
    let magnitude = a.abs(x);
    let small = a.compare(Direction::Lt, magnitude, one);
    Ok(a.select(small, from_erf, tail))
}

/// Eigen's rational approximation, clamped.
fn erf_f32(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let low = a.constant_like(-4.0, x);
    let high = a.constant_like(4.0, x);
    let clamped = clamp(a, low, x, high);
    let square = a.multiply(clamped, clamped);
    let alpha = a.polynomial(square, &ERF_F32_ALPHA);
    let beta = a.polynomial(square, &ERF_F32_BETA);
    let numerator = a.multiply(clamped, alpha);
    let quotient = a.divide(numerator, beta);
    let minus_one = a.constant_like(-1.0, x);
    let one = a.constant_like(1.0, x);
    clamp(a, minus_one, quotient, one)
}

fn clamp(a: &mut Arithmetic<'_, '_>, low: Instr, x: Instr, high: Instr) -> Instr {
    let shape = a.shape_with(x, a.element(x));
    a.emit(
        Opcode::Clamp,
        shape,
        vec![low, x, high],
        weft_ir::attrs::Attrs::plain(),
    )
}

/// `x T(x²)`, for `|x| ≤ 1`.
fn erf_f32_near_zero(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let square = a.multiply(x, x);
    let t = a.polynomial(square, &ERF_F32_T);
    a.multiply(x, t)
}

/// `erfc` for `|x| ≥ 1`.
fn erfc_f32_tail(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let square = a.multiply(x, x);
    let z = a.negate(square);
    let magnitude = a.abs(x);
    let one = a.constant_like(1.0, x);
    let reciprocal_square = a.divide(one, square);
    let exponential = a.exp(z);
    let reciprocal = a.divide(one, magnitude);
    let scale = a.multiply(exponential, reciprocal);
    let two = a.constant_like(2.0, x);
    let below_two = a.compare(Direction::Lt, magnitude, two);
    let p = a.polynomial(reciprocal_square, &ERFC_F32_P);
    let r = a.polynomial(reciprocal_square, &ERFC_F32_R);
    let polynomial = a.select(below_two, p, r);
    let value = a.multiply(scale, polynomial);
    underflow_and_reflect(a, x, z, value, MAX_LOG_F32)
}

/// 0 where `z = -x²` is below `-max_log`, and `2 - erfc(|x|)` for `x < 0`.
fn underflow_and_reflect(
    a: &mut Arithmetic<'_, '_>,
    x: Instr,
    z: Instr,
    value: Instr,
    max_log: f64,
) -> Instr {
    let bound = a.constant_like(-max_log, x);
    let underflows = a.compare(Direction::Lt, z, bound);
    let zero = a.constant_like(0.0, x);
    let clamped = a.select(underflows, zero, value);
    let negative = a.compare(Direction::Lt, x, zero);
    let two = a.constant_like(2.0, x);
    let reflected = a.subtract(two, clamped);
    a.select(negative, reflected, clamped)
}

fn erf_f64(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let near_zero = erf_f64_near_zero(a, x);
    let one = a.constant_like(1.0, x);
    let tail = erfc_f64_tail(a, x);
    let from_erfc = a.subtract(one, tail);
    let magnitude = a.abs(x);
    let small = a.compare(Direction::Lt, magnitude, one);
    a.select(small, near_zero, from_erfc)
}

/// `x T(x²) / U(x²)`, for `|x| ≤ 1`.
fn erf_f64_near_zero(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let square = a.multiply(x, x);
    let t = a.polynomial(square, &ERF_F64_T);
    let numerator = a.multiply(x, t);
    let u = a.polynomial(square, &ERF_F64_U);
    a.divide(numerator, u)
}

/// `erfc` for `|x| ≥ 1`.
fn erfc_f64_tail(a: &mut Arithmetic<'_, '_>, x: Instr) -> Instr {
    let square = a.multiply(x, x);
    let z = a.negate(square);
    let exponential = a.exp(z);
    let magnitude = a.abs(x);
    let p = a.polynomial(magnitude, &ERFC_F64_P);
    let scaled_p = a.multiply(exponential, p);
    let q = a.polynomial(magnitude, &ERFC_F64_Q);
    let below_eight_value = a.divide(scaled_p, q);
    let r = a.polynomial(magnitude, &ERFC_F64_R);
    let scaled_r = a.multiply(exponential, r);
    let s = a.polynomial(magnitude, &ERFC_F64_S);
    let above_eight_value = a.divide(scaled_r, s);
    let eight = a.constant_like(8.0, x);
    let below_eight = a.compare(Direction::Lt, magnitude, eight);
    let value = a.select(below_eight, below_eight_value, above_eight_value);
    underflow_and_reflect(a, x, z, value, MAX_LOG_F64)
}

/// Giles' single-precision coefficients for `w < 5` and above.
const ERF_INV_F32_SMALL: [f64; 9] = [
    2.810_226_36e-8,
    3.432_739_39e-7,
    -3.523_387_7e-6,
    -4.391_506_54e-6,
    0.000_218_580_87,
    -0.001_253_725_03,
    -0.004_177_681_64,
    0.246_640_727,
    1.501_409_41,
];
const ERF_INV_F32_LARGE: [f64; 9] = [
    -0.000_200_214_257,
    0.000_100_950_558,
    0.001_349_343_22,
    -0.003_673_428_44,
    0.005_739_507_73,
    -0.007_622_461_3,
    0.009_438_870_47,
    1.001_674_06,
    2.832_976_82,
];
/// Giles' double-precision coefficients for `w < 6.25`, `w < 16` and above.
const ERF_INV_F64_SMALL: [f64; 23] = [
    -3.644_412_064_017_82e-21,
    -1.685_059_138_182_016_6e-19,
    1.285_848_071_525_64e-18,
    1.115_787_767_802_518_1e-17,
    -1.333_171_662_854_621e-16,
    2.097_276_787_596_856_2e-17,
    6.637_638_134_358_324e-15,
    -4.054_566_272_975_207e-14,
    -8.151_934_197_605_472e-14,
    2.633_509_315_308_232_3e-12,
    -1.297_513_325_345_353_2e-11,
    -5.415_412_054_294_628e-11,
    1.051_212_273_321_532_3e-9,
    -4.112_633_980_346_984e-9,
    -2.907_036_995_788_200_5e-8,
    4.234_787_782_793_240_4e-7,
    -1.365_469_200_083_467_9e-6,
    -1.388_252_336_278_646_9e-5,
    0.000_186_734_208_034_057_14,
    -0.000_740_702_534_166_267,
    -0.006_033_670_871_430_149,
    0.240_158_182_425_589_62,
    1.653_654_562_683_102_7,
];
const ERF_INV_F64_MEDIUM: [f64; 19] = [
    2.213_737_692_177_578_7e-9,
    9.075_656_193_888_539e-8,
    -2.751_740_629_706_454_5e-7,
    1.823_962_921_438_922_8e-8,
    1.502_740_396_890_982_8e-6,
    -4.013_867_526_981_546e-6,
    2.923_444_908_995_544_6e-6,
    1.247_530_448_167_177_9e-5,
    -4.731_822_900_905_573_4e-5,
    6.828_485_145_957_318e-5,
    2.403_111_038_709_789_4e-5,
    -0.000_355_037_520_362_847_5,
    0.000_953_289_379_737_380_5,
    -0.001_688_275_556_023_504_7,
    0.002_491_442_096_107_851,
    -0.003_751_208_507_569_241,
    0.005_370_914_553_590_064,
    1.005_258_967_694_159_2,
    3.083_885_610_492_220_8,
];
const ERF_INV_F64_LARGE: [f64; 17] = [
    -2.710_992_061_643_857_3e-11,
    -2.555_641_816_996_525e-10,
    1.507_657_269_350_054_8e-9,
    -3.789_465_440_126_737e-9,
    7.615_701_208_078_34e-9,
    -1.496_002_662_714_924e-8,
    2.914_795_345_090_108e-8,
    -6.771_199_775_845_234e-8,
    2.290_048_222_802_665_5e-7,
    -9.929_827_294_231_7e-7,
    4.526_062_597_223_154e-6,
    -1.968_177_810_553_167e-5,
    7.599_527_703_001_776e-5,
    -0.000_215_030_119_300_444_77,
    -0.000_138_719_318_336_231_22,
    1.010_300_464_864_534_4,
    4.849_906_401_408_584,
];

pub(super) fn erf_inv(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    let double = is_double(a, x, "erf_inv")?;
    // w = -log(1 - x²), through log1p for precision near 0.
    let negated = a.negate(x);
    let minus_square = a.multiply(x, negated);
    let log = a.log_plus_one(minus_square);
    let w = a.negate(log);
    let p = if double {
        erf_inv_f64_polynomial(a, w)
    } else {
        erf_inv_f32_polynomial(a, w)
    };
    let value = a.multiply(p, x);
    // erf_inv(±1) = ±inf, where the polynomial is indeterminate.
    let magnitude = a.abs(x);
    let one = a.constant_like(1.0, x);
    let is_one = a.compare(Direction::Eq, magnitude, one);
    let infinity = a.constant_like(f64::INFINITY, x);
    let signed_infinity = a.multiply(x, infinity);
    Ok(a.select(is_one, signed_infinity, value))
}

fn erf_inv_f32_polynomial(a: &mut Arithmetic<'_, '_>, w: Instr) -> Instr {
    let five = a.constant_like(5.0, w);
    let small = a.compare(Direction::Lt, w, five);
    let two_and_a_half = a.constant_like(2.5, w);
    let small_argument = a.subtract(w, two_and_a_half);
    let root = a.sqrt(w);
    let three = a.constant_like(3.0, w);
    let large_argument = a.subtract(root, three);
    let argument = a.select(small, small_argument, large_argument);
    let coefficient = |a: &mut Arithmetic<'_, '_>, i: usize| {
        let low = a.constant_like(ERF_INV_F32_SMALL[i], w);
        let high = a.constant_like(ERF_INV_F32_LARGE[i], w);
        a.select(small, low, high)
    };
    let mut p = coefficient(a, 0);
    for i in 1..ERF_INV_F32_SMALL.len() {
        let c = coefficient(a, i);
        let scaled = a.multiply(p, argument);
        p = a.add(c, scaled);
    }
    p
}

fn erf_inv_f64_polynomial(a: &mut Arithmetic<'_, '_>, w: Instr) -> Instr {
    let bound_small = a.constant_like(6.25, w);
    let small = a.compare(Direction::Lt, w, bound_small);
    let bound_medium = a.constant_like(16.0, w);
    let medium = a.compare(Direction::Lt, w, bound_medium);
    // Coefficient i of the range w falls in; the shorter tables align at
    // their start, and the polynomial stops adding terms past their end.
    let coefficient = |a: &mut Arithmetic<'_, '_>, i: usize| {
        let mut c = a.constant_like(ERF_INV_F64_SMALL[i], w);
        if let Some(&value) = ERF_INV_F64_MEDIUM.get(i) {
            let other = a.constant_like(value, w);
            c = a.select(small, c, other);
        }
        if let Some(&value) = ERF_INV_F64_LARGE.get(i) {
            let other = a.constant_like(value, w);
            c = a.select(medium, c, other);
        }
        c
    };
    let root = a.sqrt(w);
    let offset_small = a.constant_like(3.125, w);
    let small_argument = a.subtract(w, offset_small);
    let medium_offset = a.constant_like(3.25, w);
    let large_offset = a.constant_like(5.0, w);
    let offset = a.select(medium, medium_offset, large_offset);
    let large_argument = a.subtract(root, offset);
    let argument = a.select(small, small_argument, large_argument);
    let mut p = coefficient(a, 0);
    for i in 1..ERF_INV_F64_SMALL.len() {
        let c = coefficient(a, i);
        let scaled = a.multiply(p, argument);
        let next = a.add(c, scaled);
        p = if i < ERF_INV_F64_LARGE.len() {
            next
        } else if i < ERF_INV_F64_MEDIUM.len() {
            a.select(medium, next, p)
        } else {
            a.select(small, next, p)
        };
    }
    p
}
