#!/usr/bin/env python3
"""Regenerates golden.jsonl: formulas, bindings and what Python (as PBS) gives.
Run from this directory: python3 gen_golden.py > golden.jsonl"""
import json
import subprocess

B0 = {}
FS = {"fairshare_tree_usage": 0.125312, "fairshare_perc": 0.2}
JOB = {"ncpus": 4, "walltime": 3600, "mem": 1048576, "queue_priority": 10, "job_priority": -2,
       "eligible_time": 7200, "accrue_type": 2, "fairshare_factor": 0.5, "fairshare_perc": 0.25}
FLT = {"ncpus": 2.5, "walltime": 0.0, "fairshare_factor": 0.0}
CASES = [
    # precedence / associativity
    "-2**2", "2**3**2", "2**-1", "-2**-2", "2**-3**2", "(-2)**2", "1+2*3", "(1+2)*3", "1-2-3",
    "8/4/2", "7//2*3", "2*3%4", "-7//2", "-7%3", "7%-3", "-7.5%2", "7.5//-2", "1e300*1e10",
    "not 1 == 2", "not 0 and 1", "0 or 2 and 3", "1 if 0 else 2 if 1 else 3", "3 if 2 > 1 else 4",
    "1 < 2 < 3", "3 > 2 > 1 > 0", "1 < 3 < 2", "1 == 1.0", "2 != 2", "1 <= 1 >= 0", "(1 < 2) < 3",
    "True + True", "True / 2", "False * 3", "-True", "not 2.5", "not 0.0", "nan != nan", "nan == nan",
    "inf - inf", "inf * 0", "-inf", "1/inf", "nan and 1", "0.0 or nan", "2 and 0.0", "0 and 1/0",
    "1 or 1/0", "(0 if 1 else 1/0) + 5", "1 < 0 < 1/0", "5 - -5", "+-+3", "- - 4.5", "10 - 2 + 3",
    "2 * 3 ** 2", "-3 ** 2 * 2", "100 // 7 // 2", "1_000 + 0x10 + 0o7 + 0b11", ".5 + 1. + 1e-3",
    "7 / 2", "6 / 3", "2 ** 0.5", "4 ** 0.5", "(-8) ** 3", "(-8.0) ** 2", "2 ** 100", "2 ** 100 / 3",
    "10 ** 20 // 3", "3 ** 40 % 1000", "(2 ** 64 + 1) - 2 ** 64",
    # errors of operators
    "1/0", "1.0/0", "1/0.0", "1//0", "1.5//0", "1%0", "1.0%0", "0**-1", "0.0**-1", "0**-1.5",
    "10.0**400", "(-8)**(1/3)", "(-1)**0.5", "2.0**-2000", "10**400 * 0.5", "float(10**400)",
    "10**400 / 1", "10**400 > 5", "5 % 0 if 0 else 1",
    # functions
    "pow(2, -(fairshare_tree_usage/fairshare_perc))", "pow(2, 10)", "pow(0, 0)", "pow(0, -1)",
    "pow(-8, 1/3)", "pow(10, 400)", "pow(-2, 3)", "pow(inf, -1)", "pow(nan, 0)", "pow(1, nan)",
    "sqrt(16)", "sqrt(2)", "sqrt(-1)", "sqrt(-0.0)", "exp(1)", "exp(1000)", "exp(-1000)", "log(e)",
    "log(0)", "log(-1)", "log(8, 2)", "log(100, 10)", "log(1, 1)", "log(2, 1.0)", "log10(1000)",
    "log2(1024)", "log2(0)", "log1p(-1)", "log1p(1e-10)", "expm1(1e-10)", "ceil(2.1)", "ceil(-2.1)",
    "floor(2.9)", "floor(-2.1)", "floor(inf)", "ceil(nan)", "trunc(-2.7)", "trunc(2.7)", "fabs(-3)",
    "fmod(7, 3)", "fmod(-7, 3)", "fmod(1, 0)", "fmod(inf, 1)", "fmod(1, inf)", "copysign(3, -0.0)",
    "copysign(-2, 1)", "hypot(3, 4)", "hypot(1, 2, 2)", "hypot()", "hypot(inf, nan)", "atan2(1, 1)",
    "atan2(0.0, -1)", "atan2(-0.0, -1)", "sin(pi/2)", "cos(0)", "tan(pi/4)", "sin(inf)", "asin(2)",
    "acos(0.5)", "atan(1)", "sinh(1)", "cosh(1000)", "tanh(100)", "asinh(1)", "acosh(0.5)",
    "atanh(1)", "atanh(0.5)", "degrees(pi)", "radians(180)", "erf(0.5)", "erfc(0.5)", "gamma(5)",
    "gamma(0)", "gamma(-1)", "gamma(0.5)", "gamma(200)", "lgamma(10)", "lgamma(0)", "cbrt(27)",
    "exp2(10)", "ldexp(1, 10)", "ldexp(1, 2.0)", "ldexp(1, 10000)", "remainder(7, 4)",
    "remainder(1, 0)", "nextafter(1, 2) - 1", "ulp(1)", "isfinite(inf)", "isinf(-inf)", "isnan(nan)",
    "isnan(1)", "abs(-3)", "abs(-2.5)", "abs(True)", "min(3, 1, 2)", "max(3, 1, 2)", "max(1, 1.0)",
    "max(1.0, 1)", "min(nan, 1)", "min(1, nan)", "max()", "max(1)", "min(1.5)", "round(2.5)",
    "round(3.5)", "round(-2.5)", "round(2.675, 2)", "round(0.125, 2)", "round(1250, -2)",
    "round(1350, -2)", "round(1250.0, -2)", "round(15, -1)", "round(25, -1)", "round(-0.4)",
    "round(inf)", "round(nan)", "round(1.5, 1.0)", "round(1, 2, 3)", "round(123.456, -1)",
    "round(2.5, 0)", "int(2.9)", "int(-2.9)", "int(inf)", "int(nan)", "int()", "int(1, 2)",
    "float(3)", "float()", "float(1, 2)", "sqrt(1, 2)", "abs(1, 2)", "atan2(1)", "copysign(1)",
    "log()", "log(1, 2, 3)", "pow(1)", "erf(1, 2)", "floor()",
    # unbounded ints, complex results, the value PBS sorts by (openpbs.md §1.4b)
    "10**400", "-10**400", "10**400 > 10**399", "10**400 == 10**400 + 0", "10**400 - 10**400",
    "log10(10**400)", "log(10**400)", "log2(2**2000)", "log(10**400, 10)", "log10(-10**400)",
    "2**64 // 3", "-(2**200) // 3", "-(2**200) % 3", "2**200 % -7", "2**200 % 1.5",
    "10**400 / 10**399", "1 / 10**400", "-1 / 10**400", "10**400 / 3", "2**-(10**400)",
    "2**1023 * 1.5", "float(2**1024 - 2**970)", "float(2**1024 - 2**970 - 1)", "10**400 < inf",
    "2**1024 == inf", "10**400 > 1e308", "2**53 + 1 < 2**53 + 2.0", "2**53 + 1 == 2**53 + 0.0",
    "10**400 // 0", "10**400 % 0", "(10**400) * 0.5", "sqrt(10**400)", "int(1e300)",
    "round(10**40 + 5, -1)", "round(10**40 + 15, -1)", "round(12345678901234567890123, -5)",
    "abs(-10**400) > 0", "max(10**400, inf)", "min(-10**400, 3) < 0", "(-1)**(10**400 + 1)",
    "1**(10**400)", "0**(10**400)", "factorial(30)", "factorial(0)", "factorial(5.0)",
    "factorial(-1)", "factorial(10**20)", "factorial(True)", "factorial()", "gcd()", "gcd(-4)",
    "gcd(12, 18, 10**400)", "gcd(4.0, 2)", "lcm()", "lcm(-4, 6)", "lcm(0, 5)", "lcm(2**100, 3)",
    "comb(5, 2)", "comb(100, 50)", "comb(2, 5)", "comb(-1, 2)", "comb(5, -2)", "comb(5)",
    "comb(10**20, 1)", "comb(10**20, 2)", "comb(10**20, 10**19)", "perm(5)", "perm(5, 2)",
    "perm(5, 7)", "perm()", "perm(1, 2, 3)", "perm(-5)", "perm(5, -1)", "perm(10**20, 10**19)",
    "isqrt(10**40 + 5)", "isqrt(-1)", "isqrt(2.0)", "isqrt()", "bool()", "bool(0.0)", "bool(nan)",
    "bool(2, 3)", "bool((-1)**0.5)", "(-1)**0.5", "(-8)**(1/3)", "(-2.0)**0.5 * 2", "(-1)**0.5 + 1",
    "((-1)**0.5)**2", "((-1)**0.5)**-2", "((-1)**0.5)**0", "((1+(-1)**0.5))**100",
    "((1+(-1)**0.5))**200", "(1e200 + (-1)**0.5)**2", "(0*(-1)**0.5)**-1", "2**((-1)**0.5)",
    "(1 + 2*(-1)**0.5) / (3 + 4*(-1)**0.5)", "(-1)**0.5 / 0", "-((-1)**0.5)", "abs((-4)**0.5)",
    "abs(3 + 4*(-1)**0.5)", "(-1)**0.5 // 2", "2 % (-1)**0.5", "(-1)**0.5 < 1",
    "True < (-1)**0.5", "(-1)**0.5 == (-1)**0.5", "(-1)**0.5 != 1", "(0*(-1)**0.5 + 1) == 1",
    "int((-1)**0.5)", "float((-1)**0.5)", "sqrt((-1)**0.5)", "round((-1)**0.5)",
    "floor((-1)**0.5)", "trunc((-1)**0.5)", "min((-1)**0.5, 2)", "max(2, (-1)**0.5)",
    "1 if (-1)**0.5 else 2", "not 0*(-1)**0.5", "0 and (-1)**0.5", "(-1)**0.5 or 2",
    "(-1)**0.5 * 0", "1e308 * 10 * (-1)**0.5", "(-1e308)**1.5", "ldexp(1.0, (-1)**0.5)",
    "log((-1)**0.5)", "(-1)**0.5 ** 2", "10**400 + (-1)**0.5",
    "7 // 2", "1e16", "1e15", "0.00001", "0.0001", "-0.0", "2**0.5", "5 > 3", "True",
    # PBS formulas from the references
    "fairshare_factor + (walltime/ncpus)", "ceil(fabs(-ncpus*(mem/100.00)*sqrt(walltime)))",
    "queue_priority + (0.005 * ncpus) + (0.000277778 * eligible_time)", "ncpus", "1*walltime",
    "fairshare_tree_usage", "fairshare_perc", "walltime/ncpus", "mem // ncpus", "mem % 1000",
    "ncpus ** 2", "ncpus / fairshare_perc", "job_priority * -1", "accrue_type == 2",
    "ncpus / walltime", "walltime // ncpus", "fairshare_factor * 0", "0 * job_priority",
    "-walltime", "copysign(1, -walltime)", "ncpus / fairshare_factor",
]
BINDINGS = {"fairshare_factor + (walltime/ncpus)": [JOB, FLT], "ncpus / walltime": [JOB, FLT],
            "walltime // ncpus": [JOB, FLT], "ncpus / fairshare_factor": [JOB, FLT],
            "-walltime": [FLT], "copysign(1, -walltime)": [FLT], "fairshare_factor * 0": [FLT],
            "0 * job_priority": [JOB]}


def bindings_for(f):
    if f in BINDINGS:
        return BINDINGS[f]
    if "fairshare_tree_usage" in f and "pow" in f:
        return [FS]
    if any(k in f for k in JOB):
        return [JOB]
    return [B0]


lines = [json.dumps({"f": f, "b": b}) for f in CASES for b in bindings_for(f)]
out = subprocess.run(["python3", "pbs_eval.py"], input="\n".join(lines), capture_output=True,
                     text=True, check=True).stdout.splitlines()
for case, res in zip(lines, out):
    c = json.loads(case)
    c.update(json.loads(res))
    print(json.dumps(c))
