//! Small enumerated attribute values and their spellings in HLO text.

macro_rules! text_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The value's spelling in HLO text.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Looks a value up by its spelling.
            pub fn from_name(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The accepted spellings, for error hints.
            pub fn spellings() -> String {
                [$($text),*].join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

text_enum!(
    /// `compare`'s `direction=`.
    Direction { Eq = "EQ", Ne = "NE", Ge = "GE", Gt = "GT", Le = "LE", Lt = "LT" }
);

text_enum!(
    /// `compare`'s `type=`.
    CompareType { Float = "FLOAT", TotalOrder = "TOTALORDER", Signed = "SIGNED", Unsigned = "UNSIGNED" }
);

text_enum!(
    /// `rng`'s `distribution=`.
    Distribution { Uniform = "rng_uniform", Normal = "rng_normal" }
);

text_enum!(
    /// `rng-bit-generator`'s `algorithm=`.
    RngAlgorithm { Default = "rng_default", ThreeFry = "rng_three_fry", Philox = "rng_philox" }
);

text_enum!(
    /// `fft`'s `fft_type=`.
    FftType { Fft = "FFT", Ifft = "IFFT", Rfft = "RFFT", Irfft = "IRFFT" }
);

text_enum!(
    /// `fusion`'s `kind=`.
    FusionKind { Loop = "kLoop", Input = "kInput", Output = "kOutput", Custom = "kCustom" }
);

impl CompareType {
    /// The comparison type XLA uses (and omits from text) for operands of
    /// `elem`.
    pub fn default_for(elem: crate::element_type::ElementType) -> CompareType {
        use crate::element_type::ElementClass;
        match elem.class() {
            ElementClass::Float | ElementClass::Complex => CompareType::Float,
            ElementClass::Signed => CompareType::Signed,
            _ => CompareType::Unsigned,
        }
    }
}
