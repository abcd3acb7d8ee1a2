from gpuctl.cli import run

run()
