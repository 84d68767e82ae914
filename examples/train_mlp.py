"""Training a small regression network with gradients derived by pyonnx.

The network of onnxruntime-numpy's README: batches of 32 points, 1 -> 64 -> 1 with ReLU, mean
squared loss, plain SGD. The loss is plain numpy; ``pyonnx.value_and_grad`` turns it into one
ONNX model computing the loss and its gradients with respect to the four parameters, run by
onnxruntime at every step. ``numpy_value_and_grad`` is the same step written by hand (the
check, and the baseline of ``benchmarks/run.py``).

``train_in_one_model`` is the whole training loop (epochs in a ``for``, batches in an inner
``for``) as one function compiled by ``pyonnx.compile``: it calls the ``value_and_grad`` step
``STEP``, whose gradient model is inlined into the loop body, so all epochs run in one
onnxruntime call. ``train_compiled`` runs it on the same batches as ``train``.

    python examples/train_mlp.py
"""

import numpy as np

import pyonnx


def loss(w1, b1, w2, b2, x, y):
    """Mean squared error of the 1 -> 64 -> 1 ReLU network on a batch."""
    h = np.maximum(x @ w1 + b1, 0.0)
    pred = h @ w2 + b2
    return np.mean((pred - y) ** 2)


def numpy_value_and_grad(w1, b1, w2, b2, x, y):
    """The loss and its gradients, backward pass written by hand."""
    z = x @ w1 + b1
    h = np.maximum(z, 0.0)
    d = h @ w2 + b2 - y
    value = np.mean(d * d)
    gp = d * (2.0 / d.size)
    gh = (gp @ w2.T) * (z > 0)
    return value, (x.T @ gh, gh.sum(axis=0), h.T @ gp, gp.sum(axis=0))


def init(seed: int = 0, dtype=np.float32):
    """Initial parameters (He-scaled) and a data set: y = sin(3x) on [-1, 1]."""
    rng = np.random.default_rng(seed)
    params = [rng.normal(0.0, np.sqrt(2.0), size=(1, 64)), np.zeros(64),
              rng.normal(0.0, np.sqrt(2.0 / 64), size=(64, 1)), np.zeros(1)]
    x = rng.uniform(-1.0, 1.0, size=(32 * 8, 1))
    return [p.astype(dtype) for p in params], x.astype(dtype), np.sin(3 * x).astype(dtype)


def train(epochs: int = 100, lr: float = 0.05, batch: int = 32, seed: int = 0):
    """Trains with SGD; returns the final parameters and the mean loss of every epoch."""
    params, x, y = init(seed)
    step = pyonnx.value_and_grad(loss, argnums=(0, 1, 2, 3))
    rng = np.random.default_rng(seed + 1)
    history = []
    for _ in range(epochs):
        order = rng.permutation(len(x))
        total = 0.0
        for start in range(0, len(x), batch):
            i = order[start:start + batch]
            value, grads = step(*params, x[i], y[i])
            params = [p - lr * g for p, g in zip(params, grads)]
            total += float(value)
        history.append(total / (len(x) // batch))
    return params, history


STEP = pyonnx.value_and_grad(loss, argnums=(0, 1, 2, 3))


def numpy_train(w1, b1, w2, b2, x, y, orders, lr):
    """``train_in_one_model`` in numpy with the hand-written backward pass (the baseline)."""
    batches = x.shape[0] // 32
    history = np.zeros(orders.shape[0], dtype=x.dtype)
    for epoch, order in enumerate(orders):
        total = 0.0
        for k in range(batches):
            i = order[k * 32:(k + 1) * 32]
            value, grads = numpy_value_and_grad(w1, b1, w2, b2, x[i], y[i])
            w1, b1, w2, b2 = (p - lr * g for p, g in zip((w1, b1, w2, b2), grads))
            total = total + value
        history[epoch] = total / batches
    return w1, b1, w2, b2, history


def train_in_one_model(w1, b1, w2, b2, x, y, orders, lr):
    """SGD over the epochs, one per row of ``orders`` (a permutation of the data points):
    batches of 32 in that order. Returns the final parameters and each epoch's mean loss."""
    batches = x.shape[0] // 32
    history = np.zeros(orders.shape[0], dtype=x.dtype)
    for epoch, order in enumerate(orders):
        total = 0.0
        for k in range(batches):
            i = order[k * 32:(k + 1) * 32]
            value, (g1, gb1, g2, gb2) = STEP(w1, b1, w2, b2, x[i], y[i])
            w1 = w1 - lr * g1
            b1 = b1 - lr * gb1
            w2 = w2 - lr * g2
            b2 = b2 - lr * gb2
            total = total + value
        history[epoch] = total / batches
    return w1, b1, w2, b2, history


def shuffles(epochs: int, n: int, seed: int = 0):
    """The batch orders ``train`` draws: one permutation of ``n`` points per epoch."""
    rng = np.random.default_rng(seed + 1)
    return np.stack([rng.permutation(n) for _ in range(epochs)]).reshape(epochs, n)


def train_compiled(epochs: int = 100, lr: float = 0.05, seed: int = 0):
    """``train`` (same data, initial parameters and batches) as one compiled model."""
    params, x, y = init(seed)
    *params, history = pyonnx.compile(train_in_one_model)(*params, x, y,
                                                          shuffles(epochs, len(x), seed), lr)
    return params, list(history)


def main(epochs: int = 100) -> None:
    _, history = train(epochs)
    print(f"train_mlp: loss {history[0]:.4f} -> {history[-1]:.4f} over {epochs} epochs "
          f"({history[0] / history[-1]:.0f}x lower)")
    _, history = train_compiled(epochs)
    print(f"train_mlp (one model): loss {history[0]:.4f} -> {history[-1]:.4f} over {epochs} "
          f"epochs ({history[0] / history[-1]:.0f}x lower)")


if __name__ == "__main__":
    main()
