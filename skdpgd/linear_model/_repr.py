"""Estimator reprs that always show the privacy budget."""

import inspect


class BudgetReprMixin:
    """``repr`` shows ``epsilon`` and ``delta`` even at their defaults, then changed params.

    scikit-learn prints only the parameters that differ from their defaults, so
    ``DPLogisticRegression()`` would hide the budget it trains under. The budget is what a
    reader of a notebook or a log most needs to see.
    """

    _BUDGET_PARAMS = ("epsilon", "delta")

    def __repr__(self, N_CHAR_MAX=700):
        params = self.get_params(deep=False)
        signature = inspect.signature(type(self).__init__).parameters
        shown = {name: params[name] for name in self._BUDGET_PARAMS if name in params}
        for name, value in params.items():
            default = signature[name].default if name in signature else inspect.Parameter.empty
            if name not in shown and repr(value) != repr(default):
                shown[name] = value
        text = f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"
        if len(text) > N_CHAR_MAX:
            text = text[: N_CHAR_MAX // 2] + "..." + text[-(N_CHAR_MAX // 2):]
        return text
