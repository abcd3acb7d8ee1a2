"""Views: what the CLI prints for the inventory (table rows, describe text). Pure text from
inventory data; the commands in gpuctl.cli print it."""
