-- Store a grid's accuracy rows (registered frame new_grid).
INSERT INTO estimate_grid BY NAME SELECT * FROM new_grid;
