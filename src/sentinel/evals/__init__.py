"""Answer evals: a question, the facts and source pages its answer must have, strings it must not say."""

from sentinel.evals.run import CaseResult, run_case, run_suite
from sentinel.evals.suite import Case, Suite, SuiteError, load_suite

__all__ = ["Case", "CaseResult", "Suite", "SuiteError", "load_suite", "run_case", "run_suite"]
