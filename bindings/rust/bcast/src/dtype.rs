//! Element types: the `DType` enum, the `Element` trait and the two 16-bit
//! float types the standard library lacks.

use std::fmt;

use bcast_sys as sys;

use crate::error::static_str;

/// Element type of a tensor (`bc_dtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
// `as u32` is a no-op where C enums are unsigned, a conversion where they are
// `int` (MSVC).
#[allow(clippy::unnecessary_cast)]
#[repr(u32)]
pub enum DType {
    /// `bool`, one byte holding 0 or 1.
    Bool = sys::BC_BOOL as u32,
    /// `u8`.
    UInt8 = sys::BC_UINT8 as u32,
    /// `i8`.
    Int8 = sys::BC_INT8 as u32,
    /// `i16`.
    Int16 = sys::BC_INT16 as u32,
    /// `i32`.
    Int32 = sys::BC_INT32 as u32,
    /// `i64`.
    Int64 = sys::BC_INT64 as u32,
    /// IEEE binary16 ([`F16`]).
    Float16 = sys::BC_FLOAT16 as u32,
    /// bfloat16 ([`BF16`]).
    BFloat16 = sys::BC_BFLOAT16 as u32,
    /// `f32`.
    Float32 = sys::BC_FLOAT32 as u32,
    /// `f64`.
    Float64 = sys::BC_FLOAT64 as u32,
}

/// Kinds of dtype, in PyTorch's promotion order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Category {
    Bool,
    Integer,
    Floating,
}

impl DType {
    /// Every dtype, in `bc_dtype` order.
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
    ];

    /// The dtype for a raw `bc_dtype`, `None` for an unknown value.
    pub fn from_raw(raw: sys::bc_dtype) -> Option<DType> {
        DType::ALL.get(raw as usize).copied()
    }

    /// The raw `bc_dtype` value.
    pub fn raw(self) -> sys::bc_dtype {
        self as u32 as sys::bc_dtype
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        // SAFETY: any value is accepted; this one is valid.
        unsafe { sys::bc_dtype_size(self.raw()) }
    }

    /// The name PyTorch's error messages print, which the library's messages
    /// repeat ("Float", "Long", "Bool", "Half", ...; C's `bc_dtype_name`).
    /// `Display` and `Debug` print the variant's name instead ("Float32").
    ///
    /// ```
    /// assert_eq!(bcast::DType::Int64.name(), "Long");
    /// ```
    pub fn name(self) -> &'static str {
        // SAFETY: returns a static string, never NULL.
        unsafe { static_str(sys::bc_dtype_name(self.raw())) }
    }

    /// PyTorch's Python name ("torch.float32", "torch.int64", ...).
    ///
    /// ```
    /// use bcast::DType;
    /// assert_eq!(DType::Int64.torch_name(), "torch.int64");
    /// assert_eq!(format!("{} {:?}", DType::Int64, DType::Int64), "Int64 Int64");
    /// ```
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "torch.bool",
            DType::UInt8 => "torch.uint8",
            DType::Int8 => "torch.int8",
            DType::Int16 => "torch.int16",
            DType::Int32 => "torch.int32",
            DType::Int64 => "torch.int64",
            DType::Float16 => "torch.float16",
            DType::BFloat16 => "torch.bfloat16",
            DType::Float32 => "torch.float32",
            DType::Float64 => "torch.float64",
        }
    }

    /// How the binding's own messages name a dtype: "Float32 (torch.float32)".
    pub(crate) fn describe(self) -> String {
        format!("{self:?} ({})", self.torch_name())
    }

    /// True for the four floating dtypes.
    pub fn is_floating_point(self) -> bool {
        self.category() == Category::Floating
    }

    pub(crate) fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => {
                Category::Floating
            }
            _ => Category::Integer,
        }
    }
}

/// The variant's name, as `Debug` prints it ("Float32", "Int64").
impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values are exactly the elements of one [`DType`]: same
/// size, alignment and bit patterns. Sealed: implemented for `bool`, `u8`,
/// `i8`, `i16`, `i32`, `i64`, [`F16`], [`BF16`], `f32` and `f64`.
pub trait Element: sealed::Sealed + Copy + Send + Sync + fmt::Debug + 'static {
    /// The matching dtype.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
        }
    )*};
}

element! {
    bool => Bool, u8 => UInt8, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
    F16 => Float16, BF16 => BFloat16, f32 => Float32, f64 => Float64,
}

/// IEEE 754 binary16, stored as its bits (the `half` crate's `f16`, without
/// the dependency). Conversions round to nearest, ties to even.
///
/// ```
/// use bcast::F16;
/// assert_eq!(F16::from_f32(1.5).to_bits(), 0x3e00);
/// assert_eq!(F16::from_f32(65520.0).to_f32(), f32::INFINITY); // rounds up past the max
/// assert_eq!(F16::from_bits(1).to_f32(), 2f32.powi(-24));     // smallest subnormal
/// ```
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct F16(u16);

impl F16 {
    /// The value with these bits.
    pub const fn from_bits(bits: u16) -> F16 {
        F16(bits)
    }

    /// The bits of the value.
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// Rounds `x` to the nearest binary16 (ties to even); overflow gives infinity.
    pub fn from_f32(x: f32) -> F16 {
        let bits = x.to_bits();
        let sign = ((bits >> 16) & 0x8000) as u16;
        let exp = ((bits >> 23) & 0xff) as i32;
        let man = bits & 0x7f_ffff;
        if exp == 0xff {
            let nan = if man != 0 {
                0x200 | (man >> 13) as u16
            } else {
                0
            };
            return F16(sign | 0x7c00 | nan);
        }
        let e = exp - 127 + 15;
        if e >= 0x1f {
            return F16(sign | 0x7c00);
        }
        if e <= 0 {
            if e < -10 {
                return F16(sign);
            }
            // Subnormal result: the implicit bit joins the mantissa.
            let m = man | 0x80_0000;
            let shift = (14 - e) as u32;
            let half = 1u32 << (shift - 1);
            let rem = m & ((1u32 << shift) - 1);
            let mut r = m >> shift;
            if rem > half || (rem == half && r & 1 == 1) {
                r += 1;
            }
            return F16(sign | r as u16);
        }
        let mut r = ((e as u32) << 10) | (man >> 13);
        let rem = man & 0x1fff;
        // A carry out of the mantissa correctly bumps the exponent (up to infinity).
        if rem > 0x1000 || (rem == 0x1000 && r & 1 == 1) {
            r += 1;
        }
        F16(sign | r as u16)
    }

    /// The exact `f32` value.
    pub fn to_f32(self) -> f32 {
        let h = u32::from(self.0);
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let man = h & 0x3ff;
        match exp {
            0 => {
                let v = man as f32 * (1.0 / 16_777_216.0);
                if sign != 0 {
                    -v
                } else {
                    v
                }
            }
            0x1f => f32::from_bits(sign | 0x7f80_0000 | (man << 13)),
            _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
        }
    }

    /// Rounds `x` to binary16 (through `f32`; exact for values that fit).
    pub fn from_f64(x: f64) -> F16 {
        F16::from_f32(x as f32)
    }
}

/// bfloat16 (the top half of an `f32`), stored as its bits. Conversions round
/// to nearest, ties to even.
///
/// ```
/// use bcast::BF16;
/// assert_eq!(BF16::from_f32(1.0).to_bits(), 0x3f80);
/// assert_eq!(BF16::from_f32(1.0 + 1.0 / 256.0).to_f32(), 1.0); // tie, to even
/// ```
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct BF16(u16);

impl BF16 {
    /// The value with these bits.
    pub const fn from_bits(bits: u16) -> BF16 {
        BF16(bits)
    }

    /// The bits of the value.
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// Rounds `x` to the nearest bfloat16 (ties to even).
    pub fn from_f32(x: f32) -> BF16 {
        let bits = x.to_bits();
        if x.is_nan() {
            return BF16(((bits >> 16) as u16) | 0x0040);
        }
        let rounded = bits.wrapping_add(0x7fff + ((bits >> 16) & 1));
        BF16((rounded >> 16) as u16)
    }

    /// The exact `f32` value.
    pub fn to_f32(self) -> f32 {
        f32::from_bits(u32::from(self.0) << 16)
    }

    /// Rounds `x` to bfloat16 (through `f32`).
    pub fn from_f64(x: f64) -> BF16 {
        BF16::from_f32(x as f32)
    }
}

macro_rules! half_common {
    ($t:ident) => {
        impl From<$t> for f32 {
            fn from(v: $t) -> f32 {
                v.to_f32()
            }
        }
        impl From<$t> for f64 {
            fn from(v: $t) -> f64 {
                f64::from(v.to_f32())
            }
        }
        impl From<f32> for $t {
            fn from(v: f32) -> $t {
                $t::from_f32(v)
            }
        }
        /// Compares values, as `f32` does (NaN is unequal to itself, -0 == +0).
        impl PartialEq for $t {
            fn eq(&self, other: &$t) -> bool {
                self.to_f32() == other.to_f32()
            }
        }
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &$t) -> Option<std::cmp::Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
    };
}

half_common!(F16);
half_common!(BF16);

#[cfg(test)]
mod tests {
    use super::*;

    /// Independent reference: the nearest binary16 by exhaustive search over
    /// all finite values (ties to the even bit pattern).
    fn nearest_f16(x: f32) -> u16 {
        let mut best = 0u16;
        let mut best_err = f64::INFINITY;
        for bits in 0..0x7c00u16 {
            let v = f64::from(F16(bits).to_f32());
            let err = (v - f64::from(x.abs())).abs();
            if err < best_err || (err == best_err && bits & 1 == 0) {
                best = bits;
                best_err = err;
            }
        }
        // Past the largest finite value by half an ulp or more: infinity.
        if f64::from(x.abs()) >= 65520.0 {
            best = 0x7c00;
        }
        best | if x.is_sign_negative() { 0x8000 } else { 0 }
    }

    #[test]
    fn f16_round_trips_every_value() {
        for bits in 0..=u16::MAX {
            let h = F16(bits);
            let f = h.to_f32();
            if f.is_nan() {
                assert!(F16::from_f32(f).to_f32().is_nan());
            } else {
                assert_eq!(F16::from_f32(f).to_bits(), bits, "{bits:#x}");
            }
        }
    }

    #[test]
    fn f16_rounds_to_nearest_even() {
        let samples = [
            0.1f32,
            1.0 / 3.0,
            2049.0,
            2051.0,
            65504.0,
            65519.0,
            65520.0,
            1e-7,
            2.9802322e-8,
            2.9802326e-8,
            5.9604645e-8,
            8.940697e-8,
            6.1035156e-5,
            6.097555e-5,
            -0.0,
            -1.0009766,
            1.0 + 2f32.powi(-11),
            1.0 + 3.0 * 2f32.powi(-12),
            3.4e38,
        ];
        for x in samples {
            assert_eq!(F16::from_f32(x).to_bits(), nearest_f16(x), "{x:e}");
        }
    }

    #[test]
    fn bf16_conversions() {
        assert_eq!(BF16::from_f32(f32::INFINITY).to_bits(), 0x7f80);
        assert_eq!(BF16::from_f32(f32::MAX).to_bits(), 0x7f80); // rounds past the max
        assert!(BF16::from_f32(f32::NAN).to_f32().is_nan());
        assert_eq!(BF16::from_f32(1.0 + 3.0 / 256.0).to_f32(), 1.015625); // tie, up to even
        assert_eq!(BF16::from_f32(-2.5).to_f32(), -2.5);
        for bits in 0..=u16::MAX {
            let v = BF16(bits).to_f32();
            if !v.is_nan() {
                assert_eq!(BF16::from_f32(v).to_bits(), bits);
            }
        }
    }

    #[test]
    fn categories() {
        assert!(DType::Bool.category() < DType::UInt8.category());
        assert!(DType::Int64.category() < DType::Float16.category());
        assert_eq!(DType::from_raw(9), Some(DType::Float64));
        assert_eq!(DType::from_raw(10), None);
    }
}
