"""Evaluation: entity and token metrics as the de-identification literature reports them."""
