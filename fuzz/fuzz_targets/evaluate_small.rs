//! Fuzzes the evaluator on small random programs.
//!
//! The input's bytes choose a straight-line HLO program — two or three
//! parameters of small shapes and up to 24 instructions drawn from the
//! elementwise, data-movement, reduction, dot and comparison families, each
//! built on earlier values with shapes that fit — which is printed as text,
//! parsed and verified. A program that verifies runs on seeded random
//! inputs with a 1 MiB value limit, a loop limit and a 1 s deadline. The
//! evaluator must return a value or an error, never panic, abort or hang.

#![no_main]

use libfuzzer_sys::fuzz_target;

/// The values built so far: name, element type, dimensions.
struct Value {
    name: String,
    elem: &'static str,
    dims: Vec<i64>,
}

fn shape(elem: &str, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{elem}[{}]", dims.join(","))
}

const ELEMENT_TYPES: &[&str] = &["f32", "f64", "s32", "u8", "pred", "bf16", "c64", "s64"];
const UNARY: &[&str] = &[
    "negate", "abs", "exponential", "log", "tanh", "sqrt", "floor", "sign", "not", "cosine",
    "popcnt", "is-finite", "real", "count-leading-zeros", "round-nearest-even",
];
const BINARY: &[&str] = &[
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder", "and",
    "or", "xor", "shift-left", "shift-right-logical", "atan2",
];

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.iter().copied();
    let mut next = move || bytes.next().unwrap_or(0) as usize;
    let mut values: Vec<Value> = Vec::new();
    let mut text = String::from("HloModule fuzz\n\n%sum (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\nENTRY %main (");
    let parameters = 2 + next() % 2;
    let mut body = String::new();
    let mut signature = Vec::new();
    for p in 0..parameters {
        let elem = ELEMENT_TYPES[next() % ELEMENT_TYPES.len()];
        let rank = next() % 3;
        let dims: Vec<i64> = (0..rank).map(|_| 1 + (next() % 6) as i64).collect();
        let name = format!("p{p}");
        signature.push(format!("{name}: {}", shape(elem, &dims)));
        body.push_str(&format!("  %{name} = {} parameter({p})\n", shape(elem, &dims)));
        values.push(Value { name, elem, dims });
    }
    let count = 1 + next() % 24;
    for i in 0..count {
        let pick = next() % values.len();
        let other = next() % values.len();
        let (x, y) = (&values[pick], &values[other]);
        let name = format!("v{i}");
        let (line, elem, dims) = match next() % 10 {
            0 => (format!("{} {}(%{})", shape(x.elem, &x.dims), UNARY[next() % UNARY.len()], x.name), x.elem, x.dims.clone()),
            1 | 2 => (
                format!("{} {}(%{}, %{})", shape(x.elem, &x.dims), BINARY[next() % BINARY.len()], x.name, y.name),
                x.elem,
                x.dims.clone(),
            ),
            3 => {
                let mut dims = x.dims.clone();
                dims.push(1 + (next() % 4) as i64);
                let kept: Vec<String> = (0..x.dims.len()).map(|d| d.to_string()).collect();
                (format!("{} broadcast(%{}), dimensions={{{}}}", shape(x.elem, &dims), x.name, kept.join(",")), x.elem, dims)
            }
            4 => {
                let dims: Vec<i64> = x.dims.iter().rev().copied().collect();
                let order: Vec<String> = (0..x.dims.len()).rev().map(|d| d.to_string()).collect();
                (format!("{} transpose(%{}), dimensions={{{}}}", shape(x.elem, &dims), x.name, order.join(",")), x.elem, dims)
            }
            5 => {
                let elem = ELEMENT_TYPES[next() % ELEMENT_TYPES.len()];
                (format!("{} convert(%{})", shape(elem, &x.dims), x.name), elem, x.dims.clone())
            }
            6 if !x.dims.is_empty() => {
                let dims: Vec<i64> = x.dims[1..].to_vec();
                (format!("{} reduce(%{}, %zero), dimensions={{0}}, to_apply=%sum", shape("f32", &dims), x.name), "f32", dims)
            }
            7 if x.dims.len() == 2 && y.dims.len() == 2 => {
                let dims = vec![x.dims[0], y.dims[1]];
                (
                    format!("{} dot(%{}, %{}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}", shape(x.elem, &dims), x.name, y.name),
                    x.elem,
                    dims,
                )
            }
            8 if !x.dims.is_empty() => {
                let mut dims = x.dims.clone();
                let start = (next() as i64) % dims[0];
                let ranges: Vec<String> = dims
                    .iter()
                    .enumerate()
                    .map(|(d, &size)| if d == 0 { format!("[{start}:{size}]") } else { format!("[0:{size}]") })
                    .collect();
                dims[0] -= start;
                (format!("{} slice(%{}), slice={{{}}}", shape(x.elem, &dims), x.name, ranges.join(",")), x.elem, dims)
            }
            _ => (
                format!("{} compare(%{}, %{}), direction={}", shape("pred", &x.dims), x.name, y.name, ["EQ", "LT", "GE", "NE"][next() % 4]),
                "pred",
                x.dims.clone(),
            ),
        };
        body.push_str(&format!("  %{name} = {line}\n"));
        values.push(Value { name, elem, dims });
    }
    let last = values.last().expect("a value");
    text.push_str(&signature.join(", "));
    text.push_str(&format!(") -> {} {{\n", shape(last.elem, &last.dims)));
    text.push_str("  %zero = f32[] constant(0)\n");
    text.push_str(&body);
    text.push_str(&format!("  ROOT %out = {} copy(%{})\n}}\n", shape(last.elem, &last.dims), last.name));
    let Ok(module) = weft_ir::text::parse(&text) else {
        return;
    };
    if weft_ir::verify(&module).is_err() {
        return;
    }
    let entry = module.entry.expect("an entry");
    let mut random = weft_runtime::random::SplitMix64::new(7);
    let arguments: Vec<weft_runtime::Value> = module
        .comp(entry)
        .params()
        .iter()
        .map(|&p| {
            let array = module.shapes.as_array(module.shape_of(p)).expect("arrays");
            weft_runtime::Value::Tensor(weft_runtime::random::tensor(&mut random, array.elem, &array.dims))
        })
        .collect();
    let limits = weft_runtime::Limits {
        max_value_bytes: 1 << 20,
        max_loop_iterations: Some(1000),
        deadline: Some(std::time::Duration::from_secs(1)),
    };
    let _ = weft_runtime::run_with(&module, arguments, limits);
});
