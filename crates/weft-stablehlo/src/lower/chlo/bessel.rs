//! `bessel_i1e`, the exponentially scaled modified Bessel function of the
//! first kind of order one, `e^-|x| I₁(x)`, by Cephes' Chebyshev expansions
//! as XLA's legalization evaluates them: with `z = |x|`,
//! `z · cheb(z/2 - 2, A)` for `z ≤ 8` and `cheb(32/z - 2, B) / sqrt(z)`
//! above, times `sign(x)`. `f64` uses Cephes' full series (29 and 25
//! terms); `f32` (and `f16`/`bf16`, computed in `f32`) their last 17 and 7.

use weft_ir::attrs::Direction;
use weft_ir::{ElementType, Instr, Opcode};

use super::Arithmetic;

/// Cephes' coefficients for `[0, 8]`.
const COEFFICIENTS_A: [f64; 29] = [
    2.777_914_112_761_046_4e-18,
    -2.111_421_214_358_166e-17,
    1.553_631_957_736_200_5e-16,
    -1.105_596_947_735_386_2e-15,
    7.600_684_294_735_408e-15,
    -5.042_185_504_727_912e-14,
    3.223_793_365_945_575e-13,
    -1.983_974_397_764_943_6e-12,
    1.173_618_629_889_090_1e-11,
    -6.663_489_723_502_027e-11,
    3.625_590_281_552_117e-10,
    -1.887_249_751_722_829_4e-9,
    9.381_537_386_495_773e-9,
    -4.445_059_128_796_328e-8,
    2.003_294_753_552_135_3e-7,
    -8.568_720_264_695_455e-7,
    3.470_251_308_137_678_5e-6,
    -1.327_316_365_603_943_6e-5,
    4.781_565_107_550_054e-5,
    -0.000_161_760_815_825_896_74,
    0.000_512_285_956_168_575_8,
    -0.001_513_572_450_631_253_2,
    0.004_156_422_944_312_888,
    -0.010_564_084_894_626_197,
    0.024_726_449_030_626_516,
    -0.052_945_981_208_094_99,
    0.102_643_658_689_847_1,
    -0.176_416_518_357_834_06,
    0.252_587_186_443_633_65,
];
/// Cephes' coefficients for `(8, inf)`.
const COEFFICIENTS_B: [f64; 25] = [
    7.517_296_310_842_105e-18,
    4.414_348_323_071_708e-18,
    -4.650_305_368_489_358_6e-17,
    -3.209_525_921_993_424e-17,
    2.962_628_997_645_95e-16,
    3.308_202_310_920_928_5e-16,
    -1.880_354_775_510_782_5e-15,
    -3.814_403_072_437_007_5e-15,
    1.042_027_698_412_880_2e-14,
    4.272_440_016_711_951e-14,
    -2.101_541_842_772_664_3e-14,
    -4.083_551_111_092_197_4e-13,
    -7.198_551_776_245_908e-13,
    2.035_628_544_147_089_6e-12,
    1.412_580_743_661_378_2e-11,
    3.252_603_583_015_488_4e-11,
    -1.897_495_812_350_541_3e-11,
    -5.589_743_462_196_584e-10,
    -3.835_380_385_964_237e-9,
    -2.631_468_846_889_519_6e-8,
    -2.512_236_237_870_209e-7,
    -3.882_564_808_877_691e-6,
    -0.000_110_588_938_762_623_71,
    -0.009_761_097_491_361_469,
    0.778_576_235_018_280_1,
];
/// How many of the trailing coefficients `f32` uses.
const F32_TERMS_A: usize = 17;
const F32_TERMS_B: usize = 7;

pub(super) fn bessel_i1e(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let x = operands[0];
    let (coefficients_a, coefficients_b) = match a.element(x) {
        ElementType::F64 => (&COEFFICIENTS_A[..], &COEFFICIENTS_B[..]),
        ElementType::F32 => (
            &COEFFICIENTS_A[COEFFICIENTS_A.len() - F32_TERMS_A..],
            &COEFFICIENTS_B[COEFFICIENTS_B.len() - F32_TERMS_B..],
        ),
        other => {
            return Err(format!(
                "bessel_i1e of {other} is not supported (XLA defines it on f16, bf16, f32 and f64)"
            ));
        }
    };
    let z = a.abs(x);
    let half = a.constant_like(0.5, x);
    let two = a.constant_like(2.0, x);
    let thirty_two = a.constant_like(32.0, x);
    let eight = a.constant_like(8.0, x);

    let halved = a.multiply(half, z);
    let near_argument = a.subtract(halved, two);
    let near_series = chebyshev(a, near_argument, coefficients_a);
    let near = a.multiply(z, near_series);

    let inverted = a.divide(thirty_two, z);
    let far_argument = a.subtract(inverted, two);
    let far_series = chebyshev(a, far_argument, coefficients_b);
    let root = a.sqrt(z);
    let far = a.divide(far_series, root);

    let is_near = a.compare(Direction::Le, z, eight);
    let magnitude = a.select(is_near, near, far);
    let sign = a.unary(Opcode::Sign, x);
    Ok(a.multiply(sign, magnitude))
}

/// Clenshaw's recurrence for `Σ cₖ Tₖ(x/2)` as Cephes' `chbevl`:
/// `b₀ = x b₁ - b₂ + c`, result `(b₀ - b₂) / 2`.
fn chebyshev(a: &mut Arithmetic<'_, '_>, x: Instr, coefficients: &[f64]) -> Instr {
    let zero = a.constant_like(0.0, x);
    let (mut b0, mut b1, mut b2) = (zero, zero, zero);
    for &c in coefficients {
        b2 = b1;
        b1 = b0;
        let product = a.multiply(x, b1);
        let difference = a.subtract(product, b2);
        let c = a.constant_like(c, x);
        b0 = a.add(difference, c);
    }
    let difference = a.subtract(b0, b2);
    let half = a.constant_like(0.5, x);
    a.multiply(difference, half)
}
