//! CPython 3.11's float math, bit for bit on Linux x86-64 with glibc.
//!
//! `math` takes most functions from the C library and some from its own code
//! (`Modules/mathmodule.c`). The ones it computes itself are ported here statement by statement,
//! in the same order of floating-point operations: `gamma` (`m_tgamma`), `lgamma` (`m_lgamma`,
//! with `lanczos_sum` and `m_sinpi`), `hypot` (`vector_norm`, for every number of arguments),
//! `atan2` (`m_atan2`), `remainder` (`m_remainder`), `ulp`, and the special cases of `log`,
//! `log2`, `log10` (`m_log`...), `fmod`, `pow` and `ldexp`. The others call glibc's own symbols,
//! as CPython's `math` module does: Rust's `f64` methods are not always glibc's (`acosh`,
//! `asinh` and `atanh` are computed by std, and `cbrt`, `fmod` resolve to compiler-builtins'
//! copies when linked through the unversioned name), so each call goes through `extern "C"`,
//! `cbrt` and `fmod` by glibc's versioned name.
//!
//! Errors follow CPython's wrappers: `math_1` (a NaN from a non-NaN is a domain error, an
//! infinity from a finite argument a range error when the function can overflow, else a domain
//! error; then `errno`), `math_1a` (only `errno`), `math_2`, and `is_error` (`EDOM` → domain
//! error, `ERANGE` → range error unless the result is below 1.5 in magnitude: an underflow). The
//! C library's `errno` is read as CPython reads it (on Linux; elsewhere only the ported
//! functions' own `errno` counts).
//!
//! `tests/it/math_bits.rs` checks every function against python3 on a few thousand arguments
//! each, bit for bit.

use std::borrow::Cow;

/// How a math function fails, as CPython raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathError {
    /// `ValueError: math domain error`.
    Domain,
    /// `OverflowError: math range error`.
    Range,
}

impl MathError {
    /// `str(exception)`, what PBS logs.
    pub fn message(self) -> &'static str {
        match self {
            MathError::Domain => "math domain error",
            MathError::Range => "math range error",
        }
    }
}

impl From<MathError> for Cow<'static, str> {
    fn from(e: MathError) -> Self {
        Cow::Borrowed(e.message())
    }
}

/// A float result or CPython's error.
pub type MathResult = Result<f64, MathError>;

/// A float function of one float, without Python's error checks.
pub type FloatFn = fn(f64) -> f64;

/// Which of CPython's wrappers turns a one-argument function's result into a value or an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    /// `math_1`: NaN from a non-NaN → domain error; infinity from a finite argument → range
    /// error if `can_overflow`, else domain error; then `errno`.
    Math1 {
        /// Whether an infinite result is an overflow (range error) rather than a pole.
        can_overflow: bool,
    },
    /// `math_1a`: only `errno` (erf, erfc, gamma, lgamma).
    Math1a,
    /// No check at all (degrees, radians, ulp).
    Plain,
}

/// `f(x)` checked as CPython's wrapper `w` checks it.
pub fn apply(w: Wrapper, f: FloatFn, x: f64) -> MathResult {
    let (r, errno) = with_errno(|| f(x));
    match w {
        Wrapper::Math1 { can_overflow } => {
            if r.is_nan() && !x.is_nan() {
                return Err(MathError::Domain);
            }
            if r.is_infinite() && x.is_finite() {
                return Err(if can_overflow {
                    MathError::Range
                } else {
                    MathError::Domain
                });
            }
            if r.is_finite() && errno != 0 {
                is_error(r, errno)?;
            }
            Ok(r)
        }
        Wrapper::Math1a => {
            if errno != 0 {
                is_error(r, errno)?;
            }
            Ok(r)
        }
        Wrapper::Plain => Ok(r),
    }
}

// ---------------------------------------------------------------------------------------------
// errno

const EDOM: i32 = 33;
const ERANGE: i32 = 34;

#[cfg(target_os = "linux")]
fn errno_place() -> *mut i32 {
    extern "C" {
        fn __errno_location() -> *mut i32;
    }
    // SAFETY: returns the calling thread's errno, valid for the thread's lifetime.
    unsafe { __errno_location() }
}

#[cfg(target_os = "linux")]
fn set_errno(v: i32) {
    // SAFETY: the calling thread's own errno, a valid aligned i32.
    unsafe { *errno_place() = v }
}

#[cfg(target_os = "linux")]
fn get_errno() -> i32 {
    // SAFETY: as set_errno.
    unsafe { *errno_place() }
}

#[cfg(not(target_os = "linux"))]
thread_local! {
    static ERRNO: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

#[cfg(not(target_os = "linux"))]
fn set_errno(v: i32) {
    ERRNO.with(|e| e.set(v));
}

#[cfg(not(target_os = "linux"))]
fn get_errno() -> i32 {
    ERRNO.with(|e| e.get())
}

/// `errno = 0; r = f(); (r, errno)`, restoring the caller's errno afterwards.
fn with_errno(f: impl FnOnce() -> f64) -> (f64, i32) {
    let saved = get_errno();
    set_errno(0);
    let r = f();
    let e = get_errno();
    set_errno(saved);
    (r, e)
}

/// CPython's `is_error(x)` for a non-zero errno: `Ok` when it is only an underflow.
fn is_error(r: f64, errno: i32) -> Result<(), MathError> {
    if errno == ERANGE {
        // underflow (to zero, or towards -1 for expm1) is not an error
        if r.abs() < 1.5 {
            return Ok(());
        }
        return Err(MathError::Range);
    }
    // EDOM, and (never from glibc's math functions) any other errno: a ValueError
    Err(MathError::Domain)
}

// ---------------------------------------------------------------------------------------------
// The C library

mod c {
    // compiler-builtins defines its own `cbrt` and `fmod`, and the linker prefers them to glibc's
    // for an unversioned reference; CPython's `math` gets glibc's. The versioned names are
    // glibc's base versions on these architectures.
    #[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
    extern "C" {
        #[link_name = "cbrt@GLIBC_2.2.5"]
        pub fn cbrt(x: f64) -> f64;
        #[link_name = "fmod@GLIBC_2.2.5"]
        pub fn fmod(x: f64, y: f64) -> f64;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "aarch64"))]
    extern "C" {
        #[link_name = "cbrt@GLIBC_2.17"]
        pub fn cbrt(x: f64) -> f64;
        #[link_name = "fmod@GLIBC_2.17"]
        pub fn fmod(x: f64, y: f64) -> f64;
    }
    #[cfg(not(all(
        target_os = "linux",
        target_env = "gnu",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    extern "C" {
        pub fn cbrt(x: f64) -> f64;
        pub fn fmod(x: f64, y: f64) -> f64;
    }

    extern "C" {
        pub fn acos(x: f64) -> f64;
        pub fn acosh(x: f64) -> f64;
        pub fn asin(x: f64) -> f64;
        pub fn asinh(x: f64) -> f64;
        pub fn atan(x: f64) -> f64;
        pub fn atanh(x: f64) -> f64;
        pub fn atan2(y: f64, x: f64) -> f64;
        pub fn cos(x: f64) -> f64;
        pub fn cosh(x: f64) -> f64;
        pub fn erf(x: f64) -> f64;
        pub fn erfc(x: f64) -> f64;
        pub fn exp(x: f64) -> f64;
        pub fn exp2(x: f64) -> f64;
        pub fn expm1(x: f64) -> f64;
        pub fn frexp(x: f64, e: *mut i32) -> f64;
        pub fn ldexp(x: f64, e: i32) -> f64;
        pub fn log(x: f64) -> f64;
        pub fn log10(x: f64) -> f64;
        pub fn log1p(x: f64) -> f64;
        pub fn log2(x: f64) -> f64;
        pub fn nextafter(x: f64, y: f64) -> f64;
        pub fn pow(x: f64, y: f64) -> f64;
        pub fn sin(x: f64) -> f64;
        pub fn sinh(x: f64) -> f64;
        pub fn tan(x: f64) -> f64;
        pub fn tanh(x: f64) -> f64;
    }
}

/// Safe wrappers of the C library's pure functions of doubles.
macro_rules! libm1 {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        $(
            $(#[$doc])*
            pub fn $name(x: f64) -> f64 {
                // SAFETY: a pure C function of one double; it touches nothing but errno.
                unsafe { c::$name(x) }
            }
        )*
    };
}

libm1!(
    /// The C library's `acos`.
    acos,
    /// The C library's `acosh` (not std's formula).
    acosh,
    /// The C library's `asin`.
    asin,
    /// The C library's `asinh` (not std's formula).
    asinh,
    /// The C library's `atan`.
    atan,
    /// The C library's `atanh` (not std's formula).
    atanh,
    /// glibc's `cbrt` (not compiler-builtins' correctly rounded one).
    cbrt,
    /// The C library's `cos`.
    cos,
    /// The C library's `cosh`.
    cosh,
    /// The C library's `erf`.
    erf,
    /// The C library's `erfc`.
    erfc,
    /// The C library's `exp`.
    exp,
    /// The C library's `exp2`.
    exp2,
    /// The C library's `expm1`.
    expm1,
    /// The C library's `sin`.
    sin,
    /// The C library's `sinh`.
    sinh,
    /// The C library's `tan`.
    tan,
    /// The C library's `tanh`.
    tanh,
);

/// The C library's `pow` (finite arguments give the same as CPython's `math.pow` when it does
/// not raise).
pub fn pow(x: f64, y: f64) -> f64 {
    // SAFETY: a pure C function of two doubles.
    unsafe { c::pow(x, y) }
}

/// glibc's `fmod` (exact; the symbol CPython calls).
pub fn fmod(x: f64, y: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::fmod(x, y) }
}

/// The C library's `nextafter`: `math.nextafter` (3.11 has no checks and no `steps`).
pub fn nextafter(x: f64, y: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::nextafter(x, y) }
}

fn c_atan2(y: f64, x: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::atan2(y, x) }
}

fn c_log(x: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::log(x) }
}

fn c_log2(x: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::log2(x) }
}

fn c_log10(x: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::log10(x) }
}

fn c_log1p(x: f64) -> f64 {
    // SAFETY: as pow.
    unsafe { c::log1p(x) }
}

fn c_ldexp(x: f64, e: i32) -> f64 {
    // SAFETY: as pow.
    unsafe { c::ldexp(x, e) }
}

/// `frexp(x)`: `(m, e)` with `x = m * 2^e`, `0.5 <= |m| < 1`.
fn c_frexp(x: f64) -> (f64, i32) {
    let mut e = 0i32;
    // SAFETY: `e` is a valid, exclusively borrowed i32 for the duration of the call.
    let m = unsafe { c::frexp(x, &mut e) };
    (m, e)
}

// ---------------------------------------------------------------------------------------------
// Plain functions CPython writes inline

/// `math.sqrt`'s `sqrt` (correctly rounded everywhere).
pub fn sqrt(x: f64) -> f64 {
    x.sqrt()
}

/// `math.fabs`.
pub fn fabs(x: f64) -> f64 {
    x.abs()
}

/// `math.degrees`: `x * (180 / pi)`, never an error (an overflow gives an infinity).
pub fn degrees(x: f64) -> f64 {
    const RAD_TO_DEG: f64 = 180.0 / std::f64::consts::PI;
    x * RAD_TO_DEG
}

/// `math.radians`: `x * (pi / 180)`.
pub fn radians(x: f64) -> f64 {
    const DEG_TO_RAD: f64 = std::f64::consts::PI / 180.0;
    x * DEG_TO_RAD
}

/// `_Py_log1p`: `log1p`, keeping the sign of a zero argument.
pub fn log1p(x: f64) -> f64 {
    if x == 0.0 {
        x
    } else {
        c_log1p(x)
    }
}

/// `math.ulp` (3.11): the value of the least significant bit of `x`.
pub fn ulp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let x = x.abs();
    if x.is_infinite() {
        return x;
    }
    let x2 = nextafter(x, f64::INFINITY);
    if x2.is_infinite() {
        // x is the largest finite double
        return x - nextafter(x, f64::NEG_INFINITY);
    }
    x2 - x
}

// ---------------------------------------------------------------------------------------------
// Logarithms

/// `m_log`: the C library's `log` for positive finite `x`; `-inf` (EDOM) at 0, NaN (EDOM)
/// below, NaN and `+inf` unchanged.
pub fn log(x: f64) -> f64 {
    log_with(x, c_log)
}

/// `m_log2`, as [`log`] with the C library's `log2`.
pub fn log2(x: f64) -> f64 {
    log_with(x, c_log2)
}

/// `m_log10`, as [`log`] with the C library's `log10`.
pub fn log10(x: f64) -> f64 {
    log_with(x, c_log10)
}

fn log_with(x: f64, f: FloatFn) -> f64 {
    if x.is_finite() {
        if x > 0.0 {
            return f(x);
        }
        set_errno(EDOM);
        if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        }
    } else if x.is_nan() || x > 0.0 {
        x
    } else {
        set_errno(EDOM);
        f64::NAN
    }
}

/// `loghelper`'s formula for an int too large for a double: `f(m) + f(2.0) * e` for the int
/// `m * 2^e` (`m` from `_PyLong_Frexp`, in `[0.5, 1)`).
pub fn log_of_scaled(f: FloatFn, m: f64, e: i64) -> f64 {
    f(m) + f(2.0) * e as f64
}

// ---------------------------------------------------------------------------------------------
// gamma and lgamma: CPython's Lanczos approximation

const PI: f64 = std::f64::consts::PI;
const LOGPI: f64 = 1.144_729_885_849_400_2;

/// `m_sinpi`: `sin(pi * x)`, accurate near integers; for finite `x` only.
fn m_sinpi(x: f64) -> f64 {
    let y = fmod(x.abs(), 2.0);
    // round half away from zero, as C's `round`; 0 <= n <= 4
    let n = (2.0 * y).round() as i32;
    let r = match n {
        0 => sin(PI * y),
        1 => cos(PI * (y - 0.5)),
        // not -sin(pi*(y-1.0)): that gives -0.0 instead of 0.0 when y == 1.0
        2 => sin(PI * (1.0 - y)),
        3 => -cos(PI * (y - 1.5)),
        _ => sin(PI * (y - 2.0)),
    };
    1.0f64.copysign(x) * r
}

const LANCZOS_N: usize = 13;
// g and g - 1/2 are exact doubles, written out in full as in CPython
#[allow(clippy::excessive_precision)]
const LANCZOS_G: f64 = 6.024_680_040_776_729_583_740_234_375;
#[allow(clippy::excessive_precision)]
const LANCZOS_G_MINUS_HALF: f64 = 5.524_680_040_776_729_583_740_234_375;
#[allow(clippy::excessive_precision)]
const LANCZOS_NUM_COEFFS: [f64; LANCZOS_N] = [
    23531376880.410759688572007674451636754734846804940,
    42919803642.649098768957899047001988850926355848959,
    35711959237.355668049440185451547166705960488635843,
    17921034426.037209699919755754458931112671403265390,
    6039542586.3520280050642916443072979210699388420708,
    1439720407.3117216736632230727949123939715485786772,
    248874557.86205415651146038641322942321632125127801,
    31426415.585400194380614231628318205362874684987640,
    2876370.6289353724412254090516208496135991145378768,
    186056.26539522349504029498971604569928220784236328,
    8071.6720023658162106380029022722506138218516325024,
    210.82427775157934587250973392071336271166969580291,
    2.5066282746310002701649081771338373386264310793408,
];
/// The denominator is x*(x+1)*...*(x+LANCZOS_N-2).
const LANCZOS_DEN_COEFFS: [f64; LANCZOS_N] = [
    0.0,
    39916800.0,
    120543840.0,
    150917976.0,
    105258076.0,
    45995730.0,
    13339535.0,
    2637558.0,
    357423.0,
    32670.0,
    1925.0,
    66.0,
    1.0,
];
/// gamma(1) ... gamma(23), exact.
const GAMMA_INTEGRAL: [f64; 23] = [
    1.0,
    1.0,
    2.0,
    6.0,
    24.0,
    120.0,
    720.0,
    5040.0,
    40320.0,
    362880.0,
    3628800.0,
    39916800.0,
    479001600.0,
    6227020800.0,
    87178291200.0,
    1307674368000.0,
    20922789888000.0,
    355687428096000.0,
    6402373705728000.0,
    121645100408832000.0,
    2432902008176640000.0,
    51090942171709440000.0,
    1124000727777607680000.0,
];

/// Lanczos' sum L_g(x) for positive x, as a rational function (in 1/x from 5 on).
fn lanczos_sum(x: f64) -> f64 {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    let coeffs = LANCZOS_NUM_COEFFS.iter().zip(&LANCZOS_DEN_COEFFS);
    if x < 5.0 {
        for (n, d) in coeffs.rev() {
            num = num * x + n;
            den = den * x + d;
        }
    } else {
        for (n, d) in coeffs {
            num = num / x + n;
            den = den / x + d;
        }
    }
    num / den
}

/// `m_tgamma`: CPython's gamma function (sets errno as CPython's does).
pub fn tgamma(x: f64) -> f64 {
    if !x.is_finite() {
        if x.is_nan() || x > 0.0 {
            return x; // tgamma(nan) = nan, tgamma(inf) = inf
        }
        set_errno(EDOM);
        return f64::NAN; // tgamma(-inf) = nan, invalid
    }
    if x == 0.0 {
        set_errno(EDOM);
        return f64::INFINITY.copysign(x); // tgamma(+-0.0) = +-inf, divide-by-zero
    }
    // integer arguments
    if x == x.floor() {
        if x < 0.0 {
            set_errno(EDOM); // tgamma(n) = nan, invalid for negative integers n
            return f64::NAN;
        }
        if x <= GAMMA_INTEGRAL.len() as f64 {
            // 1 <= x <= 23 here
            if let Some(&g) = GAMMA_INTEGRAL.get(x as usize - 1) {
                return g;
            }
        }
    }
    let absx = x.abs();
    // tiny arguments: tgamma(x) ~ 1/x for x near 0
    if absx < 1e-20 {
        let r = 1.0 / x;
        if r.is_infinite() {
            set_errno(ERANGE);
        }
        return r;
    }
    // large arguments: tgamma(x) overflows for x > 200, and underflows to +-0.0 for x < -200,
    // not a negative integer
    if absx > 200.0 {
        if x < 0.0 {
            return 0.0 / m_sinpi(x);
        }
        set_errno(ERANGE);
        return f64::INFINITY;
    }
    let y = absx + LANCZOS_G_MINUS_HALF;
    // the error in the sum (the correction CPython's comment derives)
    let z = if absx > LANCZOS_G_MINUS_HALF {
        let q = y - absx;
        q - LANCZOS_G_MINUS_HALF
    } else {
        let q = y - LANCZOS_G_MINUS_HALF;
        q - absx
    };
    let z = z * LANCZOS_G / y;
    let mut r;
    if x < 0.0 {
        r = -PI / m_sinpi(absx) / absx * exp(y) / lanczos_sum(absx);
        r -= z * r;
        if absx < 140.0 {
            r /= pow(y, absx - 0.5);
        } else {
            let sqrtpow = pow(y, absx / 2.0 - 0.25);
            r /= sqrtpow;
            r /= sqrtpow;
        }
    } else {
        r = lanczos_sum(absx) / exp(y);
        r += z * r;
        if absx < 140.0 {
            r *= pow(y, absx - 0.5);
        } else {
            let sqrtpow = pow(y, absx / 2.0 - 0.25);
            r *= sqrtpow;
            r *= sqrtpow;
        }
    }
    if r.is_infinite() {
        set_errno(ERANGE);
    }
    r
}

/// `m_lgamma`: CPython's log of the absolute value of the gamma function (sets errno).
pub fn lgamma(x: f64) -> f64 {
    if !x.is_finite() {
        if x.is_nan() {
            return x; // lgamma(nan) = nan
        }
        return f64::INFINITY; // lgamma(+-inf) = +inf
    }
    // integer arguments
    if x == x.floor() && x <= 2.0 {
        if x <= 0.0 {
            set_errno(EDOM); // lgamma(n) = inf, divide-by-zero for integers n <= 0
            return f64::INFINITY;
        }
        return 0.0; // lgamma(1) = lgamma(2) = 0.0
    }
    let absx = x.abs();
    // tiny arguments: lgamma(x) ~ -log(fabs(x)) for small x
    if absx < 1e-20 {
        return -c_log(absx);
    }
    // Lanczos' formula
    let mut r = c_log(lanczos_sum(absx)) - LANCZOS_G;
    r += (absx - 0.5) * (c_log(absx + LANCZOS_G - 0.5) - 1.0);
    if x < 0.0 {
        // the reflection formula for negative x
        r = LOGPI - c_log(m_sinpi(absx).abs()) - c_log(absx) - r;
    }
    if r.is_infinite() {
        set_errno(ERANGE);
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Two arguments

/// `math_2`'s checks on `r = func(x, y)` computed with `errno` cleared.
fn math_2(x: f64, y: f64, r: f64, errno: i32) -> MathResult {
    let errno = if r.is_nan() {
        if !x.is_nan() && !y.is_nan() {
            EDOM
        } else {
            0
        }
    } else if r.is_infinite() {
        if x.is_finite() && y.is_finite() {
            ERANGE
        } else {
            0
        }
    } else {
        errno
    };
    if errno != 0 {
        is_error(r, errno)?;
    }
    Ok(r)
}

/// `m_atan2`: C99's special values handled directly, then the C library's `atan2`.
pub fn m_atan2(y: f64, x: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if y.is_infinite() {
        if x.is_infinite() {
            if 1.0f64.copysign(x) == 1.0 {
                // atan2(+-inf, +inf) == +-pi/4
                return (0.25 * PI).copysign(y);
            }
            // atan2(+-inf, -inf) == +-pi*3/4
            return (0.75 * PI).copysign(y);
        }
        // atan2(+-inf, x) == +-pi/2 for finite x
        return (0.5 * PI).copysign(y);
    }
    if x.is_infinite() || y == 0.0 {
        if 1.0f64.copysign(x) == 1.0 {
            // atan2(+-y, +inf) = atan2(+-0, +x) = +-0.
            return 0.0f64.copysign(y);
        }
        // atan2(+-y, -inf) = atan2(+-0., -x) = +-pi.
        return PI.copysign(y);
    }
    c_atan2(y, x)
}

/// `math.atan2(y, x)`.
pub fn atan2(y: f64, x: f64) -> MathResult {
    let (r, errno) = with_errno(|| m_atan2(y, x));
    math_2(y, x, r, errno)
}

/// `math.copysign(x, y)`.
pub fn copysign(x: f64, y: f64) -> MathResult {
    math_2(x, y, x.copysign(y), 0)
}

/// `m_remainder`: IEEE 754 remainder, `x - n*y` with `n` the integer nearest `x/y` (ties to
/// even); always exact.
pub fn m_remainder(x: f64, y: f64) -> f64 {
    if x.is_finite() && y.is_finite() {
        if y == 0.0 {
            return f64::NAN;
        }
        let absx = x.abs();
        let absy = y.abs();
        let m = fmod(absx, absy);
        // compare m with its complement c = absy - m rather than with 0.5*absy (which may not
        // be representable); CPython's comment explains why this is exact
        let c = absy - m;
        let r = if m < c {
            m
        } else if m > c {
            -c
        } else {
            // halfway: choose the even multiple; every step here is exact
            m - 2.0 * fmod(0.5 * (absx - m), absy)
        };
        return 1.0f64.copysign(x) * r;
    }
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    if x.is_infinite() {
        return f64::NAN;
    }
    // y is infinite
    x
}

/// `math.remainder(x, y)`.
pub fn remainder(x: f64, y: f64) -> MathResult {
    let (r, errno) = with_errno(|| m_remainder(x, y));
    math_2(x, y, r, errno)
}

/// `math.fmod(x, y)`.
pub fn math_fmod(x: f64, y: f64) -> MathResult {
    // fmod(x, +/-Inf) returns x for finite x
    if y.is_infinite() && x.is_finite() {
        return Ok(x);
    }
    let (r, errno) = with_errno(|| fmod(x, y));
    let errno = if r.is_nan() {
        if !x.is_nan() && !y.is_nan() {
            EDOM
        } else {
            0
        }
    } else {
        errno
    };
    if errno != 0 {
        is_error(r, errno)?;
    }
    Ok(r)
}

/// `math.pow(x, y)` (not the `**` operator): IEEE special values handled directly, then the C
/// library's `pow` with CPython's errors.
pub fn math_pow(x: f64, y: f64) -> MathResult {
    let (r, errno);
    if !x.is_finite() || !y.is_finite() {
        errno = 0;
        r = if x.is_nan() {
            if y == 0.0 {
                1.0 // NaN**0 = 1
            } else {
                x
            }
        } else if y.is_nan() {
            if x == 1.0 {
                1.0 // 1**NaN = 1
            } else {
                y
            }
        } else if x.is_infinite() {
            let odd_y = y.is_finite() && fmod(y.abs(), 2.0) == 1.0;
            if y > 0.0 {
                if odd_y {
                    x
                } else {
                    x.abs()
                }
            } else if y == 0.0 {
                1.0
            } else if odd_y {
                0.0f64.copysign(x)
            } else {
                0.0
            }
        } else if x.abs() == 1.0 {
            // y is infinite
            1.0
        } else if y > 0.0 && x.abs() > 1.0 {
            y
        } else if y < 0.0 && x.abs() < 1.0 {
            -y // +inf
        } else {
            0.0
        };
    } else {
        let (v, e) = with_errno(|| pow(x, y));
        r = v;
        errno = if v.is_nan() {
            // (-ve)**(finite non-integer)
            EDOM
        } else if v.is_infinite() {
            // (+-0.)**negative: divide-by-zero; else an overflow
            if x == 0.0 {
                EDOM
            } else {
                ERANGE
            }
        } else {
            e
        };
    }
    if errno != 0 {
        is_error(r, errno)?;
    }
    Ok(r)
}

/// `math.ldexp(x, i)`, `i` already clamped to the i64 range as CPython clamps it to C's `long`.
pub fn ldexp(x: f64, i: i64) -> MathResult {
    let (r, errno) = if x == 0.0 || !x.is_finite() {
        // NaNs, zeros and infinities are returned unchanged
        (x, 0)
    } else if i > i64::from(i32::MAX) {
        (f64::INFINITY.copysign(x), ERANGE)
    } else if i < i64::from(i32::MIN) {
        // underflow to +-0
        (0.0f64.copysign(x), 0)
    } else {
        let e = i32::try_from(i).unwrap_or(0);
        let (r, errno) = with_errno(|| c_ldexp(x, e));
        (r, if r.is_infinite() { ERANGE } else { errno })
    };
    if errno != 0 {
        is_error(r, errno)?;
    }
    Ok(r)
}

// ---------------------------------------------------------------------------------------------
// hypot

/// `math.hypot(*coordinates)` (3.8+: `vector_norm` for every number of arguments; never an
/// error).
pub fn hypot(xs: &[f64]) -> f64 {
    let mut max = 0.0f64;
    let mut found_nan = false;
    for &x in xs {
        let x = x.abs();
        found_nan |= x.is_nan();
        if x > max {
            max = x;
        }
    }
    vector_norm(xs, max, found_nan)
}

/// CPython 3.11's `vector_norm` over `|xs[i]|`: the scaled coordinates are squared and summed
/// losslessly (Dekker's split, Neumaier's compensated sums), then the square root gets one
/// differential correction.
fn vector_norm(xs: &[f64], max: f64, found_nan: bool) -> f64 {
    const T27: f64 = 134217729.0; // ldexp(1.0, 27) + 1.0
    if max.is_infinite() {
        return max;
    }
    if found_nan {
        return f64::NAN;
    }
    if max == 0.0 || xs.len() <= 1 {
        return max;
    }
    let (mut csum, mut frac1, mut frac2, mut frac3) = (1.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (_, max_e) = c_frexp(max);
    if max_e >= -1023 {
        let scale = c_ldexp(1.0, -max_e);
        for &v in xs {
            let mut x = v.abs();
            x *= scale; // lossless scaling
            let t = x * T27;
            let hi = t - (t - x);
            let lo = x - hi;

            x = hi * hi; // lossless squaring
            let oldcsum = csum;
            csum += x;
            frac1 += (oldcsum - csum) + x;

            x = 2.0 * hi * lo;
            let oldcsum = csum;
            csum += x;
            frac2 += (oldcsum - csum) + x;

            frac3 += lo * lo;
        }
        let h = (csum - 1.0 + (frac1 + frac2 + frac3)).sqrt();

        let mut x = h;
        let t = x * T27;
        let hi = t - (t - x);
        let lo = x - hi;

        x = -hi * hi;
        let oldcsum = csum;
        csum += x;
        frac1 += (oldcsum - csum) + x;

        x = -2.0 * hi * lo;
        let oldcsum = csum;
        csum += x;
        frac2 += (oldcsum - csum) + x;

        x = -lo * lo;
        let oldcsum = csum;
        csum += x;
        frac3 += (oldcsum - csum) + x;

        x = csum - 1.0 + (frac1 + frac2 + frac3);
        return (h + x / (2.0 * h)) / scale;
    }
    // when max_e < -1023, ldexp(1.0, -max_e) overflows: divide by max instead of scaling
    for &v in xs {
        let mut x = v.abs();
        x /= max;
        x *= x;
        let oldcsum = csum;
        csum += x;
        frac1 += (oldcsum - csum) + x;
    }
    max * (csum - 1.0 + frac1).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_special_values_and_errors() {
        let g = |x: f64| apply(Wrapper::Math1a, tgamma, x);
        assert_eq!(g(5.0), Ok(24.0));
        assert_eq!(
            g(0.5).map(f64::to_bits),
            Ok(std::f64::consts::PI.sqrt().to_bits())
        );
        assert_eq!(g(0.0), Err(MathError::Domain));
        assert_eq!(g(-3.0), Err(MathError::Domain));
        assert_eq!(g(f64::NEG_INFINITY), Err(MathError::Domain));
        assert_eq!(g(172.0), Err(MathError::Range));
        assert_eq!(g(f64::INFINITY), Ok(f64::INFINITY));
        assert_eq!(g(-250.5), Ok(-0.0));
        assert!(g(f64::NAN).is_ok_and(f64::is_nan));
    }

    #[test]
    fn lgamma_special_values_and_errors() {
        let l = |x: f64| apply(Wrapper::Math1a, lgamma, x);
        assert_eq!(l(1.0), Ok(0.0));
        assert_eq!(l(2.0), Ok(0.0));
        assert_eq!(l(0.0), Err(MathError::Domain));
        assert_eq!(l(-7.0), Err(MathError::Domain));
        assert_eq!(l(f64::NEG_INFINITY), Ok(f64::INFINITY));
        assert_eq!(l(1e306), Err(MathError::Range));
        assert_eq!(l(1e-300).map(|v| v.round()), Ok(691.0));
    }

    #[test]
    fn math_1_rules() {
        let m1 = |f: FloatFn, x: f64, o: bool| apply(Wrapper::Math1 { can_overflow: o }, f, x);
        assert_eq!(m1(exp, 1000.0, true), Err(MathError::Range));
        assert_eq!(m1(exp, -1000.0, true), Ok(0.0)); // underflow: ERANGE ignored
        assert_eq!(m1(sqrt, -1.0, false), Err(MathError::Domain));
        assert_eq!(m1(atanh, 1.0, false), Err(MathError::Domain));
        assert_eq!(m1(expm1, -1000.0, true), Ok(-1.0));
        assert_eq!(m1(log, 0.0, false), Err(MathError::Domain));
        assert_eq!(m1(log, f64::INFINITY, false), Ok(f64::INFINITY));
        assert_eq!(apply(Wrapper::Plain, degrees, 1e308), Ok(f64::INFINITY));
    }

    #[test]
    fn two_argument_functions() {
        assert_eq!(math_pow(0.0, -1.0), Err(MathError::Domain));
        assert_eq!(math_pow(10.0, 400.0), Err(MathError::Range));
        assert_eq!(math_pow(-8.0, 1.0 / 3.0), Err(MathError::Domain));
        assert_eq!(math_pow(f64::NAN, 0.0), Ok(1.0));
        assert_eq!(math_pow(f64::NEG_INFINITY, 3.0), Ok(f64::NEG_INFINITY));
        assert_eq!(math_pow(2.0, -1100.0), Ok(0.0));
        assert_eq!(math_fmod(1.0, 0.0), Err(MathError::Domain));
        assert_eq!(math_fmod(5.5, f64::INFINITY), Ok(5.5));
        assert_eq!(remainder(5.0, 2.0), Ok(1.0));
        assert_eq!(remainder(7.0, 2.0), Ok(-1.0));
        assert_eq!(remainder(1.0, 0.0), Err(MathError::Domain));
        assert_eq!(remainder(f64::INFINITY, 1.0), Err(MathError::Domain));
        assert_eq!(atan2(0.0, -0.0), Ok(PI));
        assert_eq!(ldexp(1.0, 1 << 40), Err(MathError::Range));
        assert_eq!(ldexp(1.0, -(1 << 40)), Ok(0.0));
        assert_eq!(ldexp(1.0, 1024), Err(MathError::Range));
        assert_eq!(hypot(&[3.0, 4.0]), 5.0);
        assert_eq!(hypot(&[]), 0.0);
        assert_eq!(hypot(&[-0.0]), 0.0);
        assert!(hypot(&[f64::NAN, 1.0]).is_nan());
        assert_eq!(hypot(&[f64::NAN, f64::NEG_INFINITY]), f64::INFINITY);
        assert_eq!(ulp(1.0), f64::EPSILON);
        assert_eq!(ulp(f64::MAX), 2f64.powi(971));
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
    fn glibc_cbrt_not_compiler_builtins() {
        // glibc's and compiler-builtins' cbrt differ on this argument
        // (python3: math.cbrt(math.e).hex() == '0x1.6546db1ba2d15p+0')
        let r = cbrt(std::f64::consts::E);
        assert_eq!(r.to_bits(), 0x3ff6_546d_b1ba_2d15);
    }

    #[test]
    fn errno_is_restored() {
        set_errno(7);
        let _ = apply(Wrapper::Math1 { can_overflow: true }, exp, 1000.0);
        assert_eq!(get_errno(), 7);
        set_errno(0);
    }
}
