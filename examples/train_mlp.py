"""Training a small regression network with gradients derived by pyonnx.

The network of onnxruntime-numpy's README: batches of 32 points, 1 -> 64 -> 1 with ReLU, mean
squared loss, plain SGD. The loss is plain numpy; ``pyonnx.value_and_grad`` turns it into one
ONNX model computing the loss and its gradients with respect to the four parameters, run by
onnxruntime at every step. ``numpy_value_and_grad`` is the same step written by hand (the
check, and the baseline of ``benchmarks/run.py``).

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


def main(epochs: int = 100) -> None:
    _, history = train(epochs)
    print(f"train_mlp: loss {history[0]:.4f} -> {history[-1]:.4f} over {epochs} epochs "
          f"({history[0] / history[-1]:.0f}x lower)")


if __name__ == "__main__":
    main()
