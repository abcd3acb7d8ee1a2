"""python -m tests.kube.images: build the real nodes' images (once) and print their sizes."""

from tests.kube import images

print(images.build())
for name, size in images.sizes().items():
    print(f"{name}: {size / 2**20:.0f} MiB")
