//! `conj` and `square`, which XLA's legalization writes with the real and
//! imaginary parts of a complex operand:
//! - `conj(z) = complex(re z, -im z)`, and `conj(x) = x` for real `x`;
//! - `square(z) = complex((re - im)(re + im), 2 (re · im))`, with a real
//!   part of exactly 0 where `|re| == |im|` and `re` is finite (the product
//!   would round away from 0); `square(x) = x · x` for real `x`.

use weft_ir::attrs::{Attrs, Direction};
use weft_ir::{ElementType, Instr, Opcode};

use super::Arithmetic;

/// The real type of a complex type's parts.
fn part_type(element: ElementType) -> ElementType {
    if element == ElementType::C128 {
        ElementType::F64
    } else {
        ElementType::F32
    }
}

/// `(re z, im z)`.
pub(super) fn parts(a: &mut Arithmetic<'_, '_>, z: Instr) -> (Instr, Instr) {
    let part = part_type(a.element(z));
    let shape = a.shape_with(z, part);
    let real = a.emit(Opcode::Real, shape, vec![z], Attrs::plain());
    let imaginary = a.emit(Opcode::Imag, shape, vec![z], Attrs::plain());
    (real, imaginary)
}

/// `complex(re, im)` of `like`'s complex type.
pub(super) fn complex(
    a: &mut Arithmetic<'_, '_>,
    real: Instr,
    imaginary: Instr,
    like: Instr,
) -> Instr {
    let shape = a.shape_with(real, a.element(like));
    a.emit(
        Opcode::Complex,
        shape,
        vec![real, imaginary],
        Attrs::plain(),
    )
}

pub(super) fn conj(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let z = operands[0];
    if !a.element(z).is_complex() {
        return Ok(z);
    }
    let (real, imaginary) = parts(a, z);
    let negated = a.negate(imaginary);
    Ok(complex(a, real, negated, z))
}

pub(super) fn square(a: &mut Arithmetic<'_, '_>, operands: &[Instr]) -> Result<Instr, String> {
    let z = operands[0];
    if !a.element(z).is_complex() {
        return Ok(a.multiply(z, z));
    }
    let (x, y) = parts(a, z);
    let finite = a.is_finite(x);
    let x_magnitude = a.abs(x);
    let y_magnitude = a.abs(y);
    let same_magnitude = a.compare(Direction::Eq, x_magnitude, y_magnitude);
    let exact_zero = a.and(finite, same_magnitude);
    let zero = a.constant_like(0.0, x);
    let difference = a.subtract(x, y);
    let sum = a.add(x, y);
    let product = a.multiply(difference, sum);
    let real = a.select(exact_zero, zero, product);
    let two = a.constant_like(2.0, x);
    let cross = a.multiply(x, y);
    let imaginary = a.multiply(two, cross);
    Ok(complex(a, real, imaginary, z))
}
