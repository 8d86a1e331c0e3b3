# Host tools: what a person runs on the laptop next to the table.
